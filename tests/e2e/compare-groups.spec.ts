/**
 * Runs grouped on the compare page as W&B groups them: four runs (two learning rates × two seeds) streamed in through
 * the ingest service, pooled over their seeds into two mean curves with a band, the final figures "mean ± std" in the
 * groups table, and all of it in a URL that survives a reload. A run keeps one colour in the header and the legend.
 */
import { existsSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { createPrismaClient } from "../../db/client";
import { appendSteps, createExternalRun, finishExternalRun } from "../../server/services/ingest";
import { axePath, seriousViolations } from "./axe";

const db = createPrismaClient(process.env.E2E_DATABASE_URL ?? "", 2);
const tag = `groups-${Date.now() % 1_000_000}`;
const ids: string[] = [];

// reward/mean at step s: lr 0.01 → 0.1·s (+0.2 for seed 2), lr 0.001 → 0.05·s (+0.1 for seed 2); 5 steps each.
const RUNS = [
  { lr: 0.01, seed: 1, at: (s: number) => 0.1 * s },
  { lr: 0.01, seed: 2, at: (s: number) => 0.1 * s + 0.2 },
  { lr: 0.001, seed: 1, at: (s: number) => 0.05 * s },
  { lr: 0.001, seed: 2, at: (s: number) => 0.05 * s + 0.1 },
];

test.beforeAll(async () => {
  for (const r of RUNS) {
    const { id } = await createExternalRun(db, {
      name: `${tag} lr=${r.lr} seed=${r.seed}`,
      source: "other",
      environment: "e2e-groups",
      config: { learningRate: r.lr, seed: r.seed },
      tags: [tag],
      totalSteps: 5,
    });
    await appendSteps(db, { runId: id, steps: [0, 1, 2, 3, 4].map((step) => ({ step, metrics: { "reward/mean": r.at(step) } })) });
    await finishExternalRun(db, { runId: id });
    ids.push(id);
  }
});

// Other specs list and count runs: these leave nothing behind.
test.afterAll(async () => {
  await db.run.deleteMany({ where: { id: { in: ids } } });
  await db.$disconnect();
});

test("pooling the seeds draws one mean curve per learning rate with its band, reports mean ± std, and the URL keeps it", async ({
  page,
}) => {
  await page.goto(`/compare?runs=${ids.join(",")}&keys=reward/mean`);
  const chart = page.getByTestId("overlay-chart").first();
  await expect(chart.locator(".recharts-legend-item-text")).toHaveCount(4);

  // Ungrouped: each run's dot in the header is its line's colour in the legend.
  const legendColour = (i: number) => chart.locator(".recharts-legend-item").nth(i).locator("path, line").first().getAttribute("stroke");
  const headerColour = (name: string) =>
    page
      .getByRole("link", { name: new RegExp(name) })
      .locator("span")
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
  const rgb = (hex: string | null) => {
    const n = parseInt((hex ?? "").slice(1), 16);
    return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
  };
  for (let i = 0; i < 4; i++) {
    const name = `${tag} lr=${RUNS[i].lr} seed=${RUNS[i].seed}`;
    await expect(chart.locator(".recharts-legend-item-text").nth(i)).toHaveText(name);
    expect(rgb(await legendColour(i))).toBe(await headerColour(name));
  }

  // Pool the seeds: the groups are the learning rates, two runs each.
  await page.getByTestId("group-controls").locator("summary").click();
  await page.getByRole("button", { name: "Pool seeds" }).click();
  await expect(page).toHaveURL(/group=learningRate(&|$)/);
  const legend = chart.locator(".recharts-legend-item-text");
  await expect(legend).toHaveCount(2);
  await expect(legend.nth(0)).toHaveText("learningRate=0.01 (2 runs)");
  await expect(legend.nth(1)).toHaveText("learningRate=0.001 (2 runs)");
  await expect(chart).toContainText("mean, band ± std");
  await expect(chart.locator(".recharts-area")).toHaveCount(2);
  // Both runs of a group now wear the group's colour in the header.
  expect(await headerColour(`${tag} lr=0.01 seed=1`)).toBe(await headerColour(`${tag} lr=0.01 seed=2`));

  // The figure a paper reports: last values 0.4 and 0.6 → 0.5 ± 0.141; 0.2 and 0.3 → 0.25 ± 0.0707 (sample std).
  const rows = page.getByTestId("group-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText("0.5 ± 0.141 (2 runs)");
  await expect(rows.nth(1)).toContainText("0.25 ± 0.0707 (2 runs)");

  // The spread is a choice, kept in the URL with the grouping through a reload.
  await page.getByLabel("Band").selectOption("minmax");
  await expect(page).toHaveURL(/band=minmax/);
  await page.reload();
  await expect(page.getByTestId("group-row").nth(0)).toContainText("0.5 [0.4 – 0.6] (2 runs)");
  await expect(page.getByTestId("overlay-chart").first().locator(".recharts-legend-item-text")).toHaveCount(2);

  // The tooltip names the spread and how many runs a point averages.
  const surface = page.getByTestId("overlay-chart").first().locator(".recharts-wrapper > svg.recharts-surface");
  await surface.scrollIntoViewIfNeeded();
  const box = (await surface.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  await expect(page.locator(".recharts-tooltip-wrapper").first()).toContainText(/min – max: .* 2 runs/);

  if (axePath && existsSync(axePath)) {
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    await expect(page.locator("html")).toHaveClass(/dark/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "light" });
  }

  // Ungroup: back to one curve per run.
  await page.getByRole("button", { name: "Ungroup" }).click();
  await expect(page).not.toHaveURL(/group=/);
  await expect(page.getByTestId("overlay-chart").first().locator(".recharts-legend-item-text")).toHaveCount(4);
  await expect(page.getByTestId("group-summary")).toHaveCount(0);

  // Two seeds of one config (nothing else differs): "Pool seeds" makes them one group, and the URL says so.
  await page.goto(`/compare?runs=${ids[0]},${ids[1]}&keys=reward/mean`);
  await page.getByTestId("group-controls").locator("summary").click();
  await page.getByRole("button", { name: "Pool seeds" }).click();
  await expect(page).toHaveURL(/group=\*/);
  await expect(page.getByTestId("overlay-chart").first().locator(".recharts-legend-item-text")).toHaveText(["all runs (2 runs)"]);
  await expect(page.getByTestId("group-row")).toContainText(["0.5 ± 0.141 (2 runs)"]);
  await expect(page.getByTestId("group-row")).toContainText([`2: ${tag} lr=0.01 seed=1, ${tag} lr=0.01 seed=2`]);
});
