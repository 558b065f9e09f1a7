/**
 * Accessibility: axe-core (the engine behind Lighthouse's audit) finds no serious or critical violation on any
 * page, in the light theme and the dark one. It found 12–50 on the run, trajectory, inspector and signals pages
 * (colour contrast, links told apart from text by colour alone), more in dark mode.
 */
import { existsSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { dashboardTour, visit } from "./page-tour";
import { axePath, seriousViolations } from "./axe";

for (const theme of ["light", "dark"] as const) {
  test(`axe finds no serious or critical violation on any page (${theme} theme)`, async ({ page }) => {
    test.skip(!axePath || !existsSync(axePath), "axe-core is not installed (npm install): the accessibility audit needs it");
    test.setTimeout(300_000);
    await page.emulateMedia({ colorScheme: theme });
    const tour = await dashboardTour(page);
    const found: Record<string, string[]> = {};
    for (const stop of tour) {
      await visit(page, stop);
      await expect(page.locator("html")).toHaveClass(theme === "dark" ? /dark/ : /^(?!.*\bdark\b).*$/);
      const problems = await seriousViolations(page);
      if (problems.length) found[stop.name] = problems;
    }
    expect(found).toEqual({});
  });
}
