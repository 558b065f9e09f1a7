import { expect, test } from "@playwright/test";
import { SIMULATED_RUN, openRun } from "./fixtures";

// Needs a trainer worker beside the web server to execute the jobs (scripts/test.ts sets E2E_START_WORKER=true).

test("re-judge a step with a changed prompt and a lenient offline judge: verdicts flip, both reasonings shown", async ({ page }) => {
  const runId = await openRun(page, SIMULATED_RUN);
  // The run page carries the reward-health panel and the judge-reliability summary.
  await expect(page.getByTestId("reward-health")).toBeVisible();
  await expect(page.getByTestId("reliability-summary")).toBeVisible();

  await page.getByRole("link", { name: "Re-scoring" }).first().click();
  await expect(page.getByTestId("rescoring-form")).toBeVisible();
  await page.getByLabel("First step").fill("1");
  await page.getByLabel("Last step").fill("1");
  const prompt = page.getByLabel("Judge prompt");
  await prompt.fill(`${await prompt.inputValue()}\n\nBe lenient: credit any attempt.`);
  // The untrained policy failed every episode under the run's judge; a judge that needs nothing passes them all.
  await page.getByLabel("Offline strictness").fill("0");
  await page.getByRole("button", { name: "Start re-judging" }).click();

  await expect(page).toHaveURL(new RegExp(`/runs/${runId}/rescoring/[^/]+$`));
  await expect(page.getByTestId("rescoring-status")).toHaveText("succeeded", { timeout: 60_000 });
  await expect(page.getByTestId("rescored-row")).toHaveCount(8);
  const flip = page.getByTestId("flip-card").first();
  await expect(flip).toBeVisible();
  await expect(flip).toContainText("fail → pass");
  await expect(flip.getByTestId("original-reasoning")).toContainText("expected outcome met");
  await expect(flip.getByTestId("new-reasoning")).not.toBeEmpty();
  await expect(page.getByTestId("agreement-rate")).toContainText("%");
  await page.screenshot({ path: "artifacts/screenshots/rescoring-flips.png", fullPage: true });

  // A re-judged trajectory keeps the training-time judge call under its reasoning and shows the re-judge's calls in
  // their own section, linked to the job.
  const jobUrl = page.url();
  await page.getByTestId("rescored-row").first().getByRole("link").nth(1).click();
  await expect(page.getByTestId("rejudge-calls").getByTestId("llm-call").first()).toBeVisible();
  await expect(page.getByTestId("rejudge-calls").getByRole("link", { name: /re-scoring/ })).toHaveAttribute(
    "href",
    new URL(jobUrl).pathname,
  );
  await expect(page.getByTestId("judge-calls").getByTestId("llm-call").first()).toBeVisible();

  // Reliability: judge a step k=3 times with a noisy offline judge; the run page then shows a noise floor.
  await page.goto(`/runs/${runId}/rescoring?step=2`);
  await expect(page.getByLabel("First step")).toHaveValue("2");
  await page.getByLabel("Judgements per trajectory").fill("3");
  await page.getByLabel("Offline strictness").fill("0.5");
  await page.getByLabel("Offline noise").fill("0.3");
  await page.getByRole("button", { name: "Start re-judging" }).click();
  await expect(page.getByTestId("rescoring-status")).toHaveText("succeeded", { timeout: 60_000 });
  await expect(page.getByTestId("self-agreement")).toBeVisible();
  await expect(page.getByTestId("noise-floor")).toContainText("±");

  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-noise-floor")).toContainText("Judge noise floor");

  await page.getByRole("link", { name: "Signals" }).first().click();
  await expect(page.getByTestId("component-row").first()).toBeVisible();
  await page.screenshot({ path: "artifacts/screenshots/reward-signals.png", fullPage: true });
});
