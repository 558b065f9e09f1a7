/** The run page's facts and charts: what a researcher reads first. */
import { expect, test } from "@playwright/test";
import { GUESS_RUN, openRun } from "./fixtures";

test("the Backend fact says what the run trained on, without a server file path", async ({ page }) => {
  await openRun(page, GUESS_RUN);
  const backend = page.getByTestId("fact-backend");
  await expect(backend).toContainText(/^Backend(wasm|cpu|tensorflow)/);
  expect(await backend.textContent()).not.toMatch(/\/[\w.@-]+\/[\w.@-]+\.(ts|js|mjs|node)\b/);
});

test("charts state their units, tick at round steps, and each shows its own tooltip unless hover is synced", async ({ page }) => {
  await openRun(page, GUESS_RUN);
  const timed = page.locator('[data-testid="metric-chart"][data-key="time/rollout_s"]');
  await timed.scrollIntoViewIfNeeded();
  await expect(timed.getByTestId("metric-unit")).toHaveText("(s)");
  await expect(timed.getByTestId("metric-latest")).toHaveText(/^[\d.]+ s$/);
  const reward = page.locator('[data-testid="metric-chart"][data-key="reward/mean"]');
  await reward.scrollIntoViewIfNeeded();
  await expect(reward.locator("path.recharts-curve").first()).toBeVisible();
  // The 12-step run: ticks on whole, evenly spaced steps, then the last step (11) ending the axis.
  const tickLabels = reward.locator(".recharts-xAxis-tick-labels text");
  await expect(tickLabels.first()).toBeVisible();
  const ticks = (await tickLabels.allTextContents()).map(Number);
  expect(ticks.length).toBeGreaterThan(1);
  expect(ticks[ticks.length - 1]).toBe(11);
  const gaps = new Set(ticks.slice(1, -1).map((t, i) => t - ticks[i]));
  expect(gaps.size).toBeLessThanOrEqual(1);

  const box = (await reward.locator(".recharts-surface").first().boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await expect(reward.locator(".recharts-tooltip-wrapper")).toBeVisible();
  const visibleTooltips = () => page.locator(".recharts-tooltip-wrapper:visible").count();
  expect(await visibleTooltips()).toBe(1);

  await page.getByLabel("Sync hover").check();
  await expect(page).toHaveURL(/sync=1/);
  await reward.scrollIntoViewIfNeeded();
  // Measured again after the scroll; and moved again on each poll: the other charts join the shared id in an effect
  // after the checkbox's render, and a move that lands before that reaches only the hovered chart (runs.spec.ts).
  const synced = (await reward.locator(".recharts-surface").first().boundingBox())!;
  let nudge = 0;
  await expect
    .poll(async () => {
      await page.mouse.move(synced.x + synced.width / 3 + (nudge++ % 2), synced.y + synced.height / 2);
      return visibleTooltips();
    })
    .toBeGreaterThan(1);
});
