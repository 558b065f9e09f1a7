/**
 * Every page of the dashboard a user can reach, with real ids from the e2e fixtures: the console-error and
 * accessibility checks visit each one. `ready` is what shows once the page has its data.
 */
import { expect, type Page } from "@playwright/test";
import { DEMO_RUN, GUESS_RUN, IMPORTED_RUN, SIMULATED_RUN, openRun } from "./fixtures";

export interface TourStop {
  name: string;
  url: string;
  /** A selector that matches once the page has rendered its data. */
  ready: string;
}

async function firstHref(page: Page, url: string, testId: string): Promise<string> {
  await page.goto(url);
  const link = page.getByTestId(testId).first().getByRole("link").first();
  await expect(link).toBeVisible();
  return (await link.getAttribute("href"))!;
}

export async function dashboardTour(page: Page): Promise<TourStop[]> {
  const guess = await openRun(page, GUESS_RUN);
  const simulated = await openRun(page, SIMULATED_RUN);
  const imported = await openRun(page, IMPORTED_RUN);
  const demo = await openRun(page, DEMO_RUN);
  const guessTrajectory = await firstHref(page, `/runs/${guess}/trajectories`, "trajectory-row");
  const simulatedTrajectory = await firstHref(page, `/runs/${simulated}/trajectories?sort=reward&dir=desc`, "trajectory-row");
  const group = await firstHref(page, `/runs/${guess}/groups`, "group-row");
  const testId = (id: string) => `[data-testid="${id}"]`;
  return [
    { name: "runs", url: "/runs", ready: testId("run-row") },
    { name: "launch", url: "/runs/new", ready: testId("budget") },
    { name: "import", url: "/runs/import", ready: testId("upload-form") },
    { name: "compare", url: `/compare?runs=${guess},${simulated}`, ready: `${testId("overlay-chart")} path.recharts-curve` },
    { name: "settings", url: "/settings", ready: "h1:has-text('API tokens')" },
    { name: "run (finished)", url: `/runs/${guess}`, ready: `${testId("metric-chart")} path.recharts-curve` },
    { name: "run (live demo)", url: `/runs/${demo}`, ready: testId("run-name") },
    { name: "run (imported)", url: `/runs/${imported}`, ready: `${testId("metric-chart")} path.recharts-curve` },
    { name: "trajectories", url: `/runs/${guess}/trajectories`, ready: testId("trajectory-row") },
    { name: "inspector (guess-number)", url: guessTrajectory, ready: testId("conversation") },
    { name: "inspector (simulated)", url: simulatedTrajectory, ready: testId("conversation") },
    { name: "groups", url: `/runs/${guess}/groups`, ready: testId("group-row") },
    { name: "group", url: group, ready: testId("group-sample") },
    { name: "signals", url: `/runs/${simulated}/signals`, ready: testId("component-analysis") },
    { name: "re-scoring", url: `/runs/${simulated}/rescoring`, ready: testId("rescoring-form") },
    { name: "task history", url: `/runs/${guess}/tasks/guess-1`, ready: `${testId("task-reward-chart")} path.recharts-curve` },
  ];
}

/** Opens a stop and waits until its data has rendered. */
export async function visit(page: Page, stop: TourStop): Promise<void> {
  await page.goto(stop.url);
  await expect(page.locator(stop.ready).first()).toBeVisible({ timeout: 30_000 });
}
