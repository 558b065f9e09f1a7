import { expect, test } from "@playwright/test";
import { GUESS_RUN, openRun } from "./fixtures";

test("run charts: an x-axis title, the last tick at the last step, and metrics that are 0 on every step listed instead of drawn", async ({
  page,
}) => {
  await openRun(page, GUESS_RUN); // 12 steps: 0 … 11
  const reward = page.locator("[data-testid=metric-chart][data-key='reward/mean']");
  await reward.scrollIntoViewIfNeeded();
  await expect(reward.locator("svg text", { hasText: /^step$/ })).toHaveCount(1);
  const ticks = reward.locator(".recharts-xAxis-tick-labels text");
  await expect(ticks.last()).toHaveText("11");

  const zeros = page.getByTestId("all-zero-metrics");
  await expect(zeros).toContainText("0 on every step");
  const listed = ((await zeros.locator("span.font-mono").textContent()) ?? "").split(", ").filter(Boolean);
  expect(listed.length).toBeGreaterThan(0);
  expect(listed).not.toContain("reward/mean"); // drawn even when 0: the curve the page is opened for
  for (const key of listed) await expect(page.locator(`[data-testid=metric-chart][data-key='${key}']`)).toHaveCount(0);
  await zeros.getByRole("button", { name: "draw them" }).click();
  await expect(page.locator(`[data-testid=metric-chart][data-key='${listed[0]}']`)).toHaveCount(1);
});

test("Signals: counts (turns) get their own axis instead of the reward's 0-1 axis, and the page says which steps it covers", async ({
  page,
}) => {
  const runId = await openRun(page, GUESS_RUN);
  await page.goto(`/runs/${runId}/signals`);
  const analysis = page.getByTestId("component-analysis");
  await expect(analysis.getByTestId("component-window")).toHaveText(/^Steps 0–11: \d+ trajectories\./);
  await expect(analysis.getByTestId("count-components")).toContainText(/Counts on the right axis: .*\bturns\b/);
  await expect(analysis.locator(".recharts-yAxis")).toHaveCount(2);
});
