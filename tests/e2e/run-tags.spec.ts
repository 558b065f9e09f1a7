import { expect, test } from "@playwright/test";
import { SIMULATED_RUN, openRun } from "./fixtures";

test("tags edited after launch show on the run and in the runs table, and the runs search finds the run by one", async ({ page }) => {
  const tag = `seed-${Date.now() % 100_000}`;
  await openRun(page, SIMULATED_RUN);
  const tags = page.getByTestId("run-tags");
  await tags.getByRole("button", { name: /add tags|edit tags/ }).click();
  await page.getByLabel("Tags (comma-separated)").fill(` ${tag}, baseline, ${tag} `);
  await page.getByRole("button", { name: "Save tags" }).click();
  await expect(page.getByTestId("run-tags")).toContainText(tag);
  await expect(page.getByTestId("run-tags").locator("span", { hasText: tag })).toHaveCount(1); // duplicates dropped
  await page.reload();
  await expect(page.getByTestId("run-tags")).toContainText("baseline");

  await page.goto(`/runs?search=${tag}`); // the search box finds a run by a tag as well as by its name
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(page.getByTestId("run-row").first()).toContainText(SIMULATED_RUN);
  await expect(page.getByTestId("run-row").first()).toContainText(`${tag}, baseline`);
});
