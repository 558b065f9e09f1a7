import { expect, test } from "@playwright/test";
import { DEMO_RUN, GUESS_RUN, SIMULATED_RUN, openRun } from "./fixtures";

test("the demo run is a real run: it is queued on a fresh database and the worker trains it while you watch", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/runs$/);
  const row = page.getByTestId("run-row").filter({ hasText: DEMO_RUN });
  await expect(row).toBeVisible();
  await row.getByRole("link").first().click();
  await expect(page.getByTestId("run-name")).toHaveText(new RegExp(DEMO_RUN));
  // Trained live by the worker beside the web server: its status moves on and its curves appear.
  await expect(page.getByTestId("run-status")).toHaveText(/running|succeeded/, { timeout: 90_000 });
  await expect(page.getByTestId("metric-chart").first().locator("path.recharts-curve").first()).toBeVisible({ timeout: 90_000 });
  await page.screenshot({ path: "artifacts/screenshots/run-page.png", fullPage: true });
});

test("a finished run's page shows its curves; the runs list filters by status", async ({ page }) => {
  await openRun(page, GUESS_RUN);
  await expect(page.getByTestId("run-status")).toHaveText("succeeded");
  await expect(page.getByText("reward/mean", { exact: true })).toBeVisible();
  await expect(page.getByTestId("metric-chart").first().locator("path.recharts-curve").first()).toBeVisible();
  await page.goto("/runs");
  await page.screenshot({ path: "artifacts/screenshots/runs-list.png", fullPage: true });
  await page.getByLabel("Status").selectOption("failed");
  await expect(page.getByText("No runs match")).toBeVisible();
  // The filter lives in the URL: a reload (or a shared link) keeps it.
  await expect(page).toHaveURL(/status=failed/);
  await page.reload();
  await expect(page.getByLabel("Status")).toHaveValue("failed");
  await expect(page.getByText("No runs match")).toBeVisible();

  // Tick two runs and open them side by side.
  await page.goto("/runs");
  await page.getByLabel(`Select ${GUESS_RUN} to compare`).check();
  await page.getByLabel(`Select ${SIMULATED_RUN} to compare`).check();
  await page.getByRole("link", { name: "Compare 2 runs" }).click();
  await expect(page).toHaveURL(/\/compare\?runs=[^,]+,[^,]+$/);
  await expect(page.getByTestId("overlay-chart").first()).toBeVisible();
});

test("a click on a curve opens that step's trajectories; hovering one chart marks the step on all; unknown ids are a 404", async ({ page }) => {
  const runId = await openRun(page, GUESS_RUN);
  const chart = page.locator('[data-testid="metric-chart"][data-key="reward/mean"] .recharts-surface');
  await expect(chart).toBeVisible();
  const box = (await chart.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  // The shared hover line: the other charts draw their cursor at the same step too (recharts draws one only while
  // a chart's tooltip is active).
  await expect.poll(() => page.locator('[data-testid="metric-chart"] .recharts-tooltip-cursor').count()).toBeGreaterThan(1);
  await page.mouse.click(box.x + box.width * 0.6, box.y + box.height / 2);
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}/trajectories\\?stepMin=(\\d+)&stepMax=\\1`));
  await expect(page.getByTestId("trajectory-row").first()).toBeVisible();

  // Keyboard: "/" jumps to the search box, "?" lists the shortcuts, Esc closes them.
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("/");
  await expect(page.getByLabel("Search conversations")).toBeFocused();
  await page.getByLabel("Search conversations").blur();
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toContainText("j / k");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toHaveCount(0);

  for (const path of ["/runs/no-such-run", `/runs/${runId}/trajectories/no-such-trajectory`, `/runs/${runId}/groups/no-such-group`]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  }
});
