/**
 * The demo on a fresh install is a real run: `npm start` queues the guess-number launch preset (the learning demo:
 * a tiny policy, an SFT warm-start on binary-search play, then GRPO) and the worker beside the web server trains it
 * while the user watches its curves rise (about a step a second here). Nothing is written except the queued run.
 */
import { findEnvironment } from "../../lib/environments";
import type { PrismaClient } from "../../db/client";
import { createRun } from "../services/run-lifecycle";

export const DEMO_RUN_NAME = "demo · guess-number (trained live by the worker)";
const DEMO_STEPS = 200;

export async function queueDemoRun(db: PrismaClient, steps = DEMO_STEPS): Promise<string> {
  const preset = findEnvironment("guess-number")!.preset;
  const created = await createRun(db, {
    config: { ...preset, name: DEMO_RUN_NAME, environment: "guess-number", tags: ["demo"], seed: 1, grpo: { ...preset.grpo, steps } },
    launchedBy: "seed",
    launchedByName: "npm start (demo)",
  });
  return created.id;
}

/** Queue the demo only when the database has no runs at all (first start). */
export async function seedIfEmpty(db: PrismaClient): Promise<string | null> {
  if ((await db.run.count()) > 0) return null;
  return queueDemoRun(db);
}
