import { expect, test } from "@playwright/test";
import { DEMO_RUN, GUESS_RUN, openRun } from "./fixtures";

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
});
