/**
 * Accessibility: axe-core (the engine behind Lighthouse's audit) finds no serious or critical violation on any
 * page, in the light theme and the dark one. It found 12–50 on the run, trajectory, inspector and signals pages
 * (colour contrast, links told apart from text by colour alone), more in dark mode.
 */
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { dashboardTour, visit } from "./page-tour";

const require = createRequire(import.meta.url);
const axePath = (() => {
  try {
    return require.resolve("axe-core/axe.min.js");
  } catch {
    return null;
  }
})();

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axePath! });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, {
      resultTypes: ["violations"],
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "best-practice"] },
    });
    return result.violations;
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.slice(0, 3).map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")} — ${v.help}`));
}

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
