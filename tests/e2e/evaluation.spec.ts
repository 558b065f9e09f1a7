import { expect, test } from "@playwright/test";

// Needs a trainer worker beside the web server (scripts/test.ts sets E2E_START_WORKER=true); the demo training run
// queued before it may hold the worker for a while.
test("the demo evaluation: one click, the gold replay's scores per task, labelled as a script, on the environment's page", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.goto("/runs");
  await page.getByTestId("demo-evaluation").click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/, { timeout: 60_000 });
  const runId = new URL(page.url()).pathname.split("/")[2];

  const evaluation = page.getByTestId("evaluation");
  await expect(evaluation.getByTestId("scripted-badge")).toHaveText("scripted · not a model");
  const tasks = page.getByTestId("evaluation-tasks").locator("tbody tr");
  await expect(tasks).toHaveCount(4, { timeout: 200_000 });
  await expect(page.getByTestId("evaluation-overall")).toContainText("pass@1");
  await expect(page.getByTestId("evaluation-overall").locator("dd").first()).toHaveText("1.000");
  await expect(page.getByTestId("run-status")).toHaveText("succeeded");
  // What counted as a success is said beside the figures (τ²: reward 1).
  await expect(evaluation.getByTestId("success-rule")).toContainText("reward = 1");
  // No per-"step" training curves for an evaluation: they are folded away under a summary that says what they are.
  await expect(page.getByTestId("evaluation-step-charts").locator("summary")).toContainText("x: task position");
  await expect(page.locator("[data-testid=metric-chart]:visible")).toHaveCount(0);

  // A task's row leads to its trajectories; the gold play's calls are on the policy's messages.
  await tasks.first().getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}/trajectories\\?task=`));
  await page.getByTestId("trajectory-row").first().getByRole("link").first().click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}/trajectories/[^/?]+`), { timeout: 30_000 });
  await expect(page.getByTestId("conversation")).toBeVisible();
  await expect(
    page
      .getByTestId("message")
      .filter({ has: page.getByTestId("source-badge").filter({ hasText: "tool" }) })
      .first(),
  ).toBeVisible();

  // The environment's page lists it on its leaderboard.
  await page.goto("/environments/tau2-retail");
  const board = page.getByTestId("leaderboard").first();
  await expect(board).toContainText("gold actions replayed (scripted, not a model)");
  await expect(page.getByTestId("success-rule")).toContainText("reward = 1");
  await expect(board.getByRole("link", { name: /demo · tau2-retail/ }).first()).toBeVisible();
});

test("Policy: endpoint in the launch form: the pre-flight shows the first request the model will get", async ({ page }) => {
  test.setTimeout(150_000);
  // From a clone of the demo evaluation (τ² retail, gold replay): the form's first pre-flight is an evaluation's, which
  // renders an opening and nothing more, instead of a training preset's forward pass over the whole context.
  await page.goto("/runs");
  await page.getByTestId("demo-evaluation").click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/, { timeout: 60_000 });
  await page.getByRole("link", { name: "Clone" }).click();
  await expect(page.getByRole("heading", { name: "Clone run" })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByLabel(/Gold actions replayed/)).toBeChecked();
  await page.getByLabel(/Policy: endpoint/).check();
  await page.locator("#policy-source-policy-endpoint-baseUrl").fill("http://127.0.0.1:9/v1");
  await page.locator("#policy-source-policy-endpoint-model").fill("my-model");
  await expect(page.getByRole("button", { name: "Launch evaluation" })).toBeVisible();
  await expect(page.getByTestId("budget")).toContainText("Evaluation:");
  const first = page.getByTestId("preflight-first-request");
  // The worker answers pre-flight checks beside the runs it plays; on a loaded machine it may miss the form's 12 s,
  // and a changed config asks again.
  for (let attempt = 1; ; attempt++) {
    const model = `my-model-${attempt}`;
    await page.locator("#policy-source-policy-endpoint-model").fill(model);
    try {
      await expect(first).toContainText(`POST http://127.0.0.1:9/v1/chat/completions · model ${model}`, { timeout: 30_000 });
      break;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
  await expect(first).toContainText("find_user_id_by_email");
  await expect(first).not.toContainText("OPENAI_API_KEY=");
});
