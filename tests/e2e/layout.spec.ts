/**
 * Layout on a phone and on a wide screen: no page is wider than a 390 px phone (the runs table was 910 px, the
 * inspector 522 px), the Import page's format select stays inside its card, and the runs table's columns are not
 * cut off at 1440 px.
 */
import { expect, test, type Page } from "@playwright/test";
import { GUESS_RUN, SIMULATED_RUN, openRun } from "./fixtures";

/** How far the page reaches past the viewport's right edge (0 when nothing overflows). */
async function overflowPx(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** The widest elements sticking out past the viewport, for the failure message. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > width + 1)
      .slice(0, 5)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}.${String(el.className).split(" ").slice(0, 3).join(".")} → ${Math.round(el.getBoundingClientRect().right)} px`,
      );
  });
}

test.describe("on a 390 px phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("no page is wider than the phone", async ({ page }) => {
    const guess = await openRun(page, GUESS_RUN);
    const simulated = await openRun(page, SIMULATED_RUN);
    await page.goto(`/runs/${simulated}/trajectories?sort=reward&dir=desc`);
    const inspector = (await page.getByTestId("trajectory-row").first().getByRole("link").first().getAttribute("href"))!;
    for (const url of [
      "/runs",
      `/runs/${guess}`,
      inspector,
      `/runs/${guess}/trajectories`,
      "/runs/import",
      "/runs/new",
      `/runs/${simulated}/signals`,
    ]) {
      await page.goto(url);
      await page.waitForLoadState("networkidle").catch(() => {});
      expect(await overflowPx(page), `${url}: ${(await overflowing(page)).join("; ")}`).toBeLessThanOrEqual(0);
    }
  });

  test("the Import page's format select stays inside its card", async ({ page }) => {
    await page.goto("/runs/import");
    const card = await page.getByTestId("upload-form").boundingBox();
    const select = await page
      .getByLabel(/format/i)
      .first()
      .boundingBox();
    expect(select!.x + select!.width).toBeLessThanOrEqual(card!.x + card!.width);
  });
});

test.describe("on a 1440 px screen", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("the runs table shows every column whole, config columns included", async ({ page }) => {
    await page.goto("/runs?cols=grpo.steps,policy.contextLength,grpo.learningRate");
    await expect(page.getByTestId("run-row").first()).toBeVisible();
    const cut = await page
      .locator("table th, table td")
      .evaluateAll((cells) => cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent?.trim().slice(0, 30)));
    expect(cut).toEqual([]);
    expect(await overflowPx(page)).toBeLessThanOrEqual(0);
  });

  test("content uses the screen's width (it stopped at ~1,250 px) and a group of 8 shows its 8th column whole", async ({ page }) => {
    await page.goto("/runs");
    await expect(page.getByTestId("run-row").first()).toBeVisible();
    const main = (await page.locator("main").boundingBox())!;
    expect(main.width).toBeGreaterThan(1400);
    const runId = await openRun(page, GUESS_RUN); // groups of 8
    await page.goto(`/runs/${runId}/groups`);
    await page.getByTestId("group-row").first().getByRole("link").first().click();
    const columns = page.getByTestId("group-columns");
    await expect(page.getByTestId("group-sample")).toHaveCount(8);
    const area = (await columns.boundingBox())!;
    const eighth = (await page.getByTestId("group-sample").nth(7).boundingBox())!;
    expect(eighth.x + eighth.width).toBeLessThanOrEqual(area.x + area.width + 1);
    expect(eighth.x + eighth.width).toBeLessThanOrEqual(1440);
  });
});
