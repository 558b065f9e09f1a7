import { expect, test } from "@playwright/test";
import { GUESS_RUN, SIMULATED_RUN, openRun } from "./fixtures";

/** Trajectory ids of a run's list, latest step first. */
async function trajectoryIds(page: import("@playwright/test").Page, runId: string): Promise<string[]> {
  await page.goto(`/runs/${runId}/trajectories`);
  await expect(page.getByTestId("trajectory-row").first()).toBeVisible();
  const hrefs = await page
    .getByTestId("trajectory-row")
    .locator("td:first-child a")
    .evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
  return hrefs.map((h) => h.split("?")[0].split("/").pop()!);
}

test("any two trajectories side by side, from different runs, with the first message where they part marked in both", async ({ page }) => {
  const guess = await openRun(page, GUESS_RUN);
  const [a] = await trajectoryIds(page, guess);
  const simulated = await openRun(page, SIMULATED_RUN);
  const [b] = await trajectoryIds(page, simulated);

  // From the inspector: "Compare with…" and the other's URL pasted.
  await page.goto(`/runs/${guess}/trajectories/${a}`);
  await page.getByRole("link", { name: "Compare with…" }).click();
  await page.getByLabel(/The other trajectory/).fill(`http://127.0.0.1/runs/${simulated}/trajectories/${b}`);
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page).toHaveURL(new RegExp(`/trajectories/compare\\?a=${a}&b=${b}$`));

  const sides = page.getByTestId("pair-side");
  await expect(sides).toHaveCount(2);
  await expect(sides.nth(0)).toContainText(GUESS_RUN);
  await expect(sides.nth(1)).toContainText(SIMULATED_RUN);
  // Two different environments part at their first message (the system prompt): marked on both sides.
  await expect(page.getByTestId("pair-difference")).toHaveText(/same up to message #0/);
  await expect(sides.nth(0).getByTestId("first-difference")).toHaveAttribute("data-index", "0");
  await expect(sides.nth(1).getByTestId("first-difference")).toHaveAttribute("data-index", "0");
});

test("two samples of one task: the shared opening is folded and the first differing turn is marked", async ({ page }) => {
  const guess = await openRun(page, GUESS_RUN);
  await page.goto(`/runs/${guess}/groups`);
  await page.getByTestId("group-row").first().getByRole("link").first().click();
  await expect(page.getByTestId("group-sample").first()).toBeVisible();
  const samples = await page
    .getByTestId("group-sample")
    .locator('a[href*="/trajectories/"]')
    .evaluateAll((as) => [...new Set(as.map((a) => a.getAttribute("href")!.split("?")[0].split("/").pop()!))]);
  expect(samples.length).toBeGreaterThan(1);
  await page.goto(`/trajectories/compare?a=${samples[0]}&b=${samples[samples.length - 1]}`);
  const text = (await page.getByTestId("pair-difference").textContent())!;
  const at = Number(/message #(\d+)/.exec(text)![1]);
  expect(at).toBeGreaterThan(0); // same opening prompt
  const first = page.getByTestId("pair-side").nth(0).getByTestId("first-difference");
  await expect(first).toHaveAttribute("data-index", String(at));
  await expect(
    page
      .getByTestId("pair-side")
      .nth(0)
      .locator(`[data-index="${at - 1}"]`),
  ).toHaveCount(0);
  await page.getByRole("button", { name: new RegExp(`show the ${at} shared messages`) }).click();
  await expect(page.getByTestId("pair-side").nth(0).locator(`[data-index="0"]`)).toHaveCount(1);
});
