import { expect, test } from "@playwright/test";
import { GUESS_RUN, openRun } from "./fixtures";

test("a run with SFT warm-up shows its steps, its loss per warm-up step and one event-log line for the stage", async ({ page }) => {
  await openRun(page, GUESS_RUN); // the guess-number preset: 30 warm-up steps
  const panel = page.getByTestId("warmup-panel");
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId("warmup-status")).toHaveText(
    /^SFT warm-up: 30 of 30 steps done in \d+ (s|min), loss \d\.\d{3} → \d\.\d{3}\.$/,
  );
  await expect(panel.getByRole("progressbar", { name: "SFT warm-up steps" })).toHaveAttribute("aria-valuenow", "30");
  const chart = panel.getByTestId("warmup-chart");
  await expect(chart).toHaveAttribute("data-key", "sft/loss");
  await expect(chart.locator("svg text", { hasText: "warm-up step" })).toHaveCount(1);
  await expect(page.getByTestId("event-log").getByText(/^SFT warm-up: /)).toHaveCount(1);
});
