/**
 * npm run bench:api — latency of the dashboard's heaviest queries on a large synthetic run, against the real
 * PostgreSQL: 100k steps × 20 metric keys (2M points) and 1M trajectories (125k groups × 8). Prints JSON with p50 /
 * p95 per query; the target is p95 ≤ 100 ms, and < 1 s for the signals page (its warnings over the most recent
 * 4,000 trajectories and the run's curves, grouped by kind). The filled database (rl_bench_api) is kept between runs because filling
 * takes minutes; pass --refill to rebuild it.
 *
 * Env: BENCH_PG_ADMIN_URL (default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import type pg from "pg";
import { createPrismaClient } from "../db/client";
import { benchConditions, benchDbUrl, insertMetricRun, insertRollups, loadAverageNow, openBenchDb } from "./bench-db";
import { getRunSignals } from "../server/services/reward-signals";
import { getMetricSeries } from "../server/services/metrics";
import { getTrajectory, getTrajectoryNeighbors, listTrajectories } from "../server/services/trajectories";

const DB = "rl_bench_api";
const STEPS = 100_000;
const KEYS = Array.from({ length: 20 }, (_, i) => (i === 0 ? "reward/mean" : `bench/key_${String(i).padStart(2, "0")}`));
const GROUP_STEPS = 15_625; // × 8 groups × 8 samples = 1,000,000 trajectories
const RUN_ID = "bench-run";
/** The curves the signals page reads (drift, divergence), added to a database filled before they were benched. */
const SIGNAL_KEYS = ["response/length_mean", "env/turns_mean", "eval/reward_mean"];

const dbUrl = () => benchDbUrl(DB);

/** The signals page's curves and the rollups long curves are read from; a no-op once present. */
async function addSignalCurves(c: pg.Client): Promise<void> {
  const have = await c.query(`SELECT 1 FROM "MetricRollup" WHERE "runId" = $1 AND key = $2 LIMIT 1`, [RUN_ID, SIGNAL_KEYS[0]]);
  if (have.rowCount) return;
  console.error("adding the signals page's curves and their rollups…");
  // Length and turns wander like a real run's (a slow sine plus noise); eval every 10 steps.
  await c.query(
    `INSERT INTO "MetricPoint" ("runId", key, step, value, "wallTime")
     SELECT $1, k, s, CASE WHEN k = 'env/turns_mean' THEN 3 + sin(s / 900.0) + random() * 0.5 ELSE 80 + 40 * sin(s / 1300.0) + random() * 20 END,
            now() - make_interval(secs => ($2 - s) * 30)
     FROM generate_series(0, $2 - 1) s, unnest($3::text[]) k
     ON CONFLICT DO NOTHING`,
    [RUN_ID, STEPS, SIGNAL_KEYS.slice(0, 2)],
  );
  await c.query(
    `INSERT INTO "MetricPoint" ("runId", key, step, value, "wallTime")
     SELECT $1, 'eval/reward_mean', s, 0.5 + 0.3 * cos(s / 700.0), now() - make_interval(secs => ($2 - s) * 30)
     FROM generate_series(0, $2 - 1, 10) s ON CONFLICT DO NOTHING`,
    [RUN_ID, STEPS],
  );
  await c.query(`DELETE FROM "MetricRollup" WHERE "runId" = $1`, [RUN_ID]);
  await insertRollups(c, RUN_ID);
  await c.query("ANALYZE");
}

async function fill(refill: boolean): Promise<void> {
  const c = await openBenchDb(DB, refill);
  const done = await c.query(`SELECT count(*)::int AS n FROM "Trajectory" WHERE "runId" = $1`, [RUN_ID]);
  if (done.rows[0].n >= 1_000_000) {
    await addSignalCurves(c);
    await c.end();
    return;
  }
  const t0 = Date.now();
  console.error("filling: run + 2M metric points + 1M trajectories (a few minutes, once)…");
  await c.query(`TRUNCATE "Run" CASCADE`);
  await insertMetricRun(c, { id: RUN_ID, name: "bench", steps: STEPS, keys: KEYS });
  await c.query(
    `INSERT INTO "Group" (id, "runId", step, "indexInStep", "taskId", "rewardMean", "rewardStd")
     SELECT 'g' || s || '-' || g, $1, s, g, 'task-' || ((s * 8 + g) % 500), 0.5, 0.3
     FROM generate_series(0, $2 - 1) s, generate_series(0, 7) g`,
    [RUN_ID, GROUP_STEPS],
  );
  await c.query(
    `INSERT INTO "Trajectory" (id, "groupId", "runId", step, "taskId", "indexInGroup", reward, "rewardComponents", advantage,
                               reasoning, status, "numTurns", "promptTokens", "responseTokens", conversation)
     SELECT 't' || s || '-' || g || '-' || i, 'g' || s || '-' || g, $1, s, 'task-' || ((s * 8 + g) % 500), i,
            CASE WHEN random() < 0.02 THEN NULL ELSE round(random())::float8 END, '{"goal": 1}', random() - 0.5,
            'The agent did what the user asked.', 'ok', 3, 180, 60,
            jsonb_build_array(
              jsonb_build_object('role', 'system', 'source', 'system', 'turn', 0, 'content', 'You are a support agent.'),
              jsonb_build_object('role', 'user', 'source', 'user_simulator', 'turn', 0, 'content', 'Please move my booking ' || s || ' to Friday.'),
              jsonb_build_object('role', 'assistant', 'source', 'policy', 'turn', 0, 'content', 'Done: booking ' || s || ' is on Friday.'),
              jsonb_build_object('role', 'user', 'source', 'user_simulator', 'turn', 1, 'content', 'Thanks! ###STOP###'))
     FROM generate_series(0, $2 - 1) s, generate_series(0, 7) g, generate_series(0, 7) i`,
    [RUN_ID, GROUP_STEPS],
  );
  await c.query(
    `INSERT INTO "LlmCall" (id, "runId", "trajectoryId", turn, role, model, endpoint, request, response, "latencyMs", "startedAt")
     SELECT 'c' || t.id || '-' || n, $1, t.id, 0, 'user_simulator', 'offline', 'offline', '{"messages": []}', '{"text": "ok"}', 200, now()
     FROM "Trajectory" t, generate_series(0, 2) n WHERE t.step >= $2 - 200`,
    [RUN_ID, GROUP_STEPS],
  );
  await addSignalCurves(c);
  await c.query("ANALYZE");
  await c.end();
  console.error(`filled in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

async function time(fn: () => Promise<unknown>, n: number): Promise<{ p50_ms: number; p95_ms: number; max_ms: number }> {
  await fn(); // warm the plan and connection
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  xs.sort((a, b) => a - b);
  const at = (q: number) => Number(xs[Math.min(xs.length - 1, Math.floor(q * xs.length))].toFixed(1));
  return { p50_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1) };
}

await fill(process.argv.includes("--refill"));
const loadBefore = loadAverageNow();
const db = createPrismaClient(dbUrl());
const N = Number(process.env.BENCH_ITERATIONS ?? 30);
const latest = `t${GROUP_STEPS - 1}-0-0`;
const base = { runId: RUN_ID, sort: "step" as const, dir: "desc" as const };
const results = {
  "run page: metric series, 20 keys × 100k steps → 400 points": await time(
    () => getMetricSeries(db, { runId: RUN_ID, keys: KEYS, maxPoints: 400 }),
    N,
  ),
  "run page: metric series, reward/mean only": await time(
    () => getMetricSeries(db, { runId: RUN_ID, keys: ["reward/mean"], maxPoints: 400 }),
    N,
  ),
  "browser: first page, newest first": await time(() => listTrajectories(db, { ...base, limit: 50, offset: 0 }), N),
  "browser: reward filter + sort by reward": await time(
    () => listTrajectories(db, { ...base, sort: "reward", rewardMin: 0.5, limit: 50, offset: 0 }),
    N,
  ),
  "browser: page 200 (offset 10k)": await time(() => listTrajectories(db, { ...base, limit: 50, offset: 10_000 }), N),
  "browser: one step's trajectories": await time(
    () => listTrajectories(db, { ...base, stepMin: 7000, stepMax: 7000, limit: 50, offset: 0 }),
    N,
  ),
  "inspector: trajectory with its LLM calls": await time(() => getTrajectory(db, { runId: RUN_ID, id: latest }), N),
  "inspector: prev/next in browser order (whole run)": await time(() => getTrajectoryNeighbors(db, { ...base, id: latest }), 5),
  "signals page: warnings grouped by kind (target < 1 s)": await time(() => getRunSignals(db, { runId: RUN_ID }), 5),
};
console.log(
  JSON.stringify(
    {
      conditions: { ...benchConditions(loadBefore), database: "PostgreSQL (127.0.0.1:5432)" },
      metricPoints: STEPS * (KEYS.length + SIGNAL_KEYS.length - 1) + STEPS / 10,
      trajectories: GROUP_STEPS * 64,
      results,
    },
    null,
    2,
  ),
);
await db.$disconnect();
