/**
 * bench:persist — what recording a step into the real PostgreSQL costs, and what share of a real step that is.
 *
 * 1. A large synthetic step: 16 groups × 8 trajectories × 10 turns, each turn with a user-simulator and a
 *    tool-simulator call, plus one judge call per trajectory (128 trajectories, 2,688 LLM-call rows, ~60 metric
 *    points), recorded BENCH_REPEATS times.
 * 2. Real steps: the launch presets named in BENCH_PERSIST_PRESETS (default guess-number, userrl-intention) train
 *    two steps each through the production loop (trainer/loop/real/local-run.ts, in memory); each step's record is
 *    then written with recordStep and its time set against the step's own measured time (rollout + update +
 *    checkpoint). Real runs record the same figure per step as `time/record_s`.
 *
 * Usage: npm run bench:persist  (TEST_PG_ADMIN_URL overrides postgresql://postgres@127.0.0.1:5432/postgres;
 * a scratch database is created and dropped).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { applyMigrations } from "../db/migrate";
import { createPrismaClient } from "../db/client";
import { recordStep } from "../trainer/record/record-step";
import { summariseStep } from "../trainer/record/summarise-step";
import { makeGroup } from "../trainer/record/testing/fixtures";
import { insertQueuedRun } from "../trainer/record/testing/make-run";
import { realStepShares } from "./persist-real-steps";
import { benchConditions, loadAverageNow } from "./bench-db";

const GROUPS = 16;
const GROUP_SIZE = 8;
const TURNS = 10;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const PRESETS = (process.env.BENCH_PERSIST_PRESETS ?? "guess-number,userrl-intention").split(",").filter(Boolean);

const adminUrl = process.env.TEST_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const name = `rl_bench_${randomBytes(4).toString("hex")}`;

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const loadBefore = loadAverageNow();
await admin(`CREATE DATABASE "${name}"`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
try {
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  await applyMigrations(c);
  await c.end();
  const db = createPrismaClient(url.toString(), 3);
  const runId = await insertQueuedRun(db);
  const times: number[] = [];
  let rows = { trajectories: 0, llmCalls: 0, metrics: 0 };
  for (let step = 0; step < REPEATS; step++) {
    const groups = Array.from({ length: GROUPS }, (_, g) =>
      makeGroup(
        g,
        Array.from({ length: GROUP_SIZE }, (_, i) => ((i + g) % 5) / 4),
        TURNS,
      ),
    );
    const metrics = summariseStep({ groups, update: { "loss/policy": 0.1, kl: 0.01 }, timings: { rollout_s: 30 } });
    const t0 = performance.now();
    await recordStep(db, runId, { step, groups, metrics, events: [{ level: "info", message: "bench" }] }, { workerId: undefined });
    times.push((performance.now() - t0) / 1000);
    rows = {
      trajectories: groups.reduce((s, g) => s + g.trajectories.length, 0),
      llmCalls: groups.reduce((s, g) => s + g.trajectories.reduce((n, t) => n + t.llmCalls.length, 0), 0),
      metrics: Object.keys(metrics).length,
    };
  }
  const realSteps = await realStepShares(db, PRESETS);
  await db.$disconnect();
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(
    JSON.stringify(
      {
        bench: "persist",
        conditions: { ...benchConditions(loadBefore), postgres: adminUrl.replace(/\/\/[^@]*@/, "//") },
        step: { groups: GROUPS, groupSize: GROUP_SIZE, turns: TURNS, ...rows },
        repeats: REPEATS,
        recordStepSeconds: {
          median: round(median),
          min: round(sorted[0]),
          max: round(sorted[sorted.length - 1]),
          all: times.map((t) => round(t)),
        },
        realSteps,
      },
      null,
      2,
    ),
  );
} finally {
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

function round(v: number, digits = 3): number {
  return Math.round(v * 10 ** digits) / 10 ** digits;
}
