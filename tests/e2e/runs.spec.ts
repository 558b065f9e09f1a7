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

  // The table sorts by a metric column (the best reward first), in the URL too.
  await page.getByLabel("Status").selectOption("");
  await page.getByRole("button", { name: "Sort by Best" }).click();
  await expect(page).toHaveURL(/sort=best&dir=desc/);
  await expect(async () => {
    const best = await page.getByTestId("run-row").evaluateAll((els) =>
      els
        .map((e) => e.getAttribute("data-best"))
        .filter((v) => v !== "")
        .map(Number),
    );
    expect(best.length).toBeGreaterThan(1);
    expect(best).toEqual([...best].sort((a, b) => b - a));
  }).toPass();

  // Any config setting becomes a sortable column, kept in the URL; the settings that differ are offered first.
  const picker = page.getByLabel("Add config column");
  await expect(picker.locator("optgroup[label='Differs between these runs'] option", { hasText: "grpo.steps" })).toHaveCount(1);
  await picker.selectOption("grpo.steps");
  await expect(page).toHaveURL(/cols=grpo\.steps/);
  await page.getByRole("button", { name: "Sort by grpo.steps" }).click();
  await expect(page).toHaveURL(/sort=config%3Agrpo\.steps&dir=asc|sort=config:grpo\.steps&dir=asc/);
  await expect(async () => {
    const steps = (await page.getByTestId("config-cell-grpo.steps").allTextContents()).filter((t) => t !== "—").map(Number);
    expect(steps.length).toBeGreaterThan(1);
    expect(steps).toEqual([...steps].sort((x, y) => x - y));
  }).toPass();
  await page.reload();
  await expect(page.getByRole("button", { name: "Sort by grpo.steps" })).toBeVisible();
  await page.getByRole("button", { name: "Remove column grpo.steps" }).click();
  await expect(page).not.toHaveURL(/cols=/);
  await expect(page.getByTestId("config-cell-grpo.steps")).toHaveCount(0);

  // Tick two runs and open them side by side.
  await page.goto("/runs");
  await page.getByLabel(`Select ${GUESS_RUN} to compare`).check();
  await page.getByLabel(`Select ${SIMULATED_RUN} to compare`).check();
  await page.getByRole("link", { name: "Compare 2 runs" }).click();
  await expect(page).toHaveURL(/\/compare\?runs=[^,]+,[^,]+$/);
  await expect(page.getByTestId("overlay-chart").first()).toBeVisible();
  // The legend lists the runs in the header's order (recharts would sort them by name), and smoothing is shared.
  const legend = page.getByTestId("overlay-chart").first().locator(".recharts-legend-item-text");
  await expect(legend).toHaveCount(2);
  await expect(legend.nth(0)).toContainText(GUESS_RUN);
  await expect(legend.nth(1)).toContainText(SIMULATED_RUN);
  await page.getByLabel("Smoothing").fill("0.8");
  await expect(page).toHaveURL(/smooth=0\.80/);

  // The run page keeps its view in the URL: filter, log scale and x-axis survive a reload.
  await openRun(page, GUESS_RUN);
  await page.getByLabel("Filter metrics").fill("reward/");
  await page.getByLabel("Log scale").check();
  await page.getByLabel("X axis").selectOption("time");
  await expect(page).toHaveURL(/filter=reward%2F/);
  await expect(page).toHaveURL(/log=1/);
  await expect(page).toHaveURL(/x=time/);
  await page.reload();
  await expect(page.getByLabel("Filter metrics")).toHaveValue("reward/");
  await expect(page.getByLabel("Log scale")).toBeChecked();
  await expect(page.getByLabel("X axis")).toHaveValue("time");
  await expect(page.getByTestId("metric-chart").first()).toContainText("reward/");

  // A namespace folds away and a chart pins to the front of the grid; both are kept in the URL.
  await page.getByLabel("Filter metrics").fill("");
  const lastGroup = page.getByRole("group", { name: "Metric groups" }).getByRole("button").last();
  const folded = (await lastGroup.innerText()).split(" · ")[0];
  await lastGroup.click();
  await expect(lastGroup).toHaveAttribute("aria-pressed", "false");
  await expect(page.locator(`[data-testid="metric-chart"][data-key^="${folded}/"]`)).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`hide=${folded}`));
  const lastKey = (await page.getByTestId("metric-chart").last().getAttribute("data-key"))!;
  await page.getByRole("button", { name: `Pin ${lastKey}`, exact: true }).click();
  await expect(page.getByTestId("metric-chart").first()).toHaveAttribute("data-key", lastKey);
  // The URL is written asynchronously: reload only once it holds the pin.
  await expect.poll(() => new URL(page.url()).searchParams.get("pin")).toBe(lastKey);
  await page.reload();
  await expect(page.getByTestId("metric-chart").first()).toHaveAttribute("data-key", lastKey);
  await expect(page.locator(`[data-testid="metric-chart"][data-key^="${folded}/"]`)).toHaveCount(0);

  // A phone: the tab bar scrolls instead of widening the page, and the backend's reason wraps instead of being cut.
  await page.setViewportSize({ width: 390, height: 800 });
  await expect(page.getByTestId("run-tabs").getByRole("link", { name: "Compare" })).toBeAttached();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // The backend's summary and the reasons beneath it.
  const backend = page.getByTestId("fact-backend").locator("dd");
  expect(await backend.evaluateAll((els) => els.every((el) => el.scrollWidth <= el.clientWidth))).toBe(true);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("a click on a curve opens that step's trajectories; with hover synced, one chart marks the step on all; unknown ids are a 404", async ({
  page,
}) => {
  const runId = await openRun(page, GUESS_RUN);
  // Each chart has its own tooltip; "sync hover" shows the same step on all of them.
  await page.getByLabel("Sync hover").check();
  const chart = page.locator('[data-testid="metric-chart"][data-key="reward/mean"] .recharts-surface');
  await expect(chart).toBeVisible();
  // The pointer only reaches what is on screen: the warm-up panel can push the charts below the fold.
  await chart.scrollIntoViewIfNeeded();
  const box = (await chart.boundingBox())!;
  // The shared hover line: the other charts draw their cursor at the same step too (recharts draws one only while
  // a chart's tooltip is active). The other charts subscribe to the shared id in an effect after the checkbox's
  // render, so a move that lands before that reaches only the hovered chart, as it would for a user; each poll moves
  // the pointer again (a pixel either way) the way a hand keeps moving.
  let nudge = 0;
  await expect
    .poll(async () => {
      await page.mouse.move(box.x + box.width * 0.6 + (nudge++ % 2), box.y + box.height / 2);
      return page.locator('[data-testid="metric-chart"] .recharts-tooltip-cursor').count();
    })
    .toBeGreaterThan(1);
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

  for (const path of [
    "/runs/no-such-run",
    `/runs/${runId}/trajectories/no-such-trajectory`,
    `/runs/${runId}/groups/no-such-group`,
    `/runs/${runId}/rescoring/no-such-job`,
  ]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  }
});
