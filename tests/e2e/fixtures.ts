/** Names of the runs scripts/e2e-fixtures.ts trains before the browser starts, and how to open one. */
import { expect, type Page } from "@playwright/test";

export const DEMO_RUN = "demo · guess-number";
export const GUESS_RUN = "e2e · guess-number";
export const SIMULATED_RUN = "e2e · simulated (offline judge)";
export const IMPORTED_RUN = "e2e · imported verl run";

/** Opens a run's page from the runs list; returns its id. */
export async function openRun(page: Page, name: string): Promise<string> {
  await page.goto("/runs");
  await page.getByTestId("run-row").filter({ hasText: name }).first().getByRole("link").first().click();
  await expect(page.getByTestId("run-name")).toBeVisible();
  return new URL(page.url()).pathname.split("/")[2];
}
