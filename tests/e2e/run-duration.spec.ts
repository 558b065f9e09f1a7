import { expect, test } from "@playwright/test";
import { GUESS_RUN, openRun } from "./fixtures";

/** "1h 6m" / "2m 5s" / "12s" → seconds. */
const seconds = (text: string) =>
  [...text.matchAll(/(\d+)([hms])/g)].reduce((s, [, n, unit]) => s + Number(n) * { h: 3600, m: 60, s: 1 }[unit as "h" | "m" | "s"], 0);

test("the run page shows training time and wall time apart, each saying what it counts", async ({ page }) => {
  await openRun(page, GUESS_RUN);
  const training = page.getByTestId("fact-training-time");
  const wall = page.getByTestId("fact-wall-time");
  await expect(training.getByTestId("training-time")).toHaveText(/^(\d+h )?(\d+m )?\d+s$|^\d+h \d+m$/);
  await expect(wall.locator("dd")).toHaveText(/\d+s|\d+m/);
  await expect(training.locator("dt")).toHaveAttribute("title", /without time spent queued/);
  await expect(wall.locator("dt")).toHaveAttribute("title", /including time spent queued/);
  const t = seconds((await training.getByTestId("training-time").textContent())!);
  const w = seconds((await wall.locator("dd").textContent())!);
  expect(t).toBeGreaterThan(0);
  expect(t).toBeLessThanOrEqual(w + 1);
});
