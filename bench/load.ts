/**
 * npm run bench:load — the dashboard under 50 concurrent browser tabs while a run trains, end to end: the built web
 * app (`npm start` machinery: next start + a real trainer worker) against a fresh database on the real PostgreSQL.
 *
 *   tabs   30 on the live run's page (polling what the page polls, at its intervals: run 2 s, curves and events
 *          3 s, metric keys 5 s, checkpoints 10 s), 10 on the runs list (2 s, sparklines 5 s), 10 paging through a
 *          finished run's trajectories and opening one every second (browser + inspector)
 *   data   a finished run with 2,000 steps × 30 metric keys and 16,000 trajectories (3 LLM calls each), and a live
 *          guess-number run training on the worker
 *
 * Prints JSON: p50 / p95 / p99 per request kind and overall, errors, and the training slowdown (mean seconds per
 * step with the tabs open vs. without). Env: BENCH_PG_ADMIN_URL, BENCH_LOAD_SECONDS (default 45), BENCH_TABS.
 * Latencies mean little on a machine others are using: the 1-minute load average before the run and during the
 * measured window is printed beside p95 (and warned about when it already exceeded the core count before the run).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { applyMigrations } from "../db/migrate";
import { createPrismaClient } from "../db/client";
import { insertQueuedRun } from "../trainer/record/testing/make-run";
import { freePort } from "../tests/integration/helpers/start-app";

const ADMIN = process.env.BENCH_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 45);
const TABS = Number(process.env.BENCH_TABS ?? 50);
const DB = `rl_bench_load_${process.pid}`;
const HISTORY = "history-run";
const KEYS = Array.from({ length: 30 }, (_, i) => (i === 0 ? "reward/mean" : `bench/key_${String(i).padStart(2, "0")}`));

function dbUrl(): string {
  const u = new URL(ADMIN);
  u.pathname = `/${DB}`;
  return u.toString();
}

async function seedHistory(c: pg.Client): Promise<void> {
  await c.query(
    `INSERT INTO "Run" (id, name, status, config, environment, "policyModel", seed, "totalSteps", step, tags, "launchedBy", "updatedAt")
     VALUES ($1, 'finished run', 'succeeded', '{}', 'simulated', 'tiny', 0, 2000, 2000, '{}', 'api', now())`,
    [HISTORY],
  );
  await c.query(
    `INSERT INTO "MetricPoint" ("runId", key, step, value, "wallTime")
     SELECT $1, k, s, sin(s / 100.0) + random() * 0.1, now() - make_interval(secs => (2000 - s) * 30) FROM generate_series(0, 1999) s, unnest($2::text[]) k`,
    [HISTORY, KEYS],
  );
  await c.query(
    `INSERT INTO "Group" (id, "runId", step, "indexInStep", "taskId", "rewardMean", "rewardStd")
     SELECT 'g' || s || '-' || g, $1, s, g, 'task-' || ((s * 4 + g) % 100), 0.5, 0.3 FROM generate_series(0, 499) s, generate_series(0, 3) g`,
    [HISTORY],
  );
  await c.query(
    `INSERT INTO "Trajectory" (id, "groupId", "runId", step, "taskId", "indexInGroup", reward, "rewardComponents", advantage, reasoning, status,
                               "numTurns", "promptTokens", "responseTokens", conversation)
     SELECT 't' || s || '-' || g || '-' || i, 'g' || s || '-' || g, $1, s, 'task-' || ((s * 4 + g) % 100), i, round(random())::float8, '{"goal": 1}',
            random() - 0.5, 'The agent did what the user asked.', 'ok', 3, 180, 60,
            jsonb_build_array(jsonb_build_object('role', 'user', 'source', 'user_simulator', 'turn', 0, 'content', repeat('Please move my booking. ', 20)),
                              jsonb_build_object('role', 'assistant', 'source', 'policy', 'turn', 0, 'content', repeat('Done. ', 30)))
     FROM generate_series(0, 499) s, generate_series(0, 3) g, generate_series(0, 7) i`,
    [HISTORY],
  );
  await c.query(
    `INSERT INTO "LlmCall" (id, "runId", "trajectoryId", turn, role, model, endpoint, request, response, "latencyMs", "startedAt")
     SELECT 'c' || t.id || '-' || n, $1, t.id, 0, 'user_simulator', 'offline', 'offline',
            jsonb_build_object('messages', jsonb_build_array(jsonb_build_object('role', 'user', 'content', repeat('history ', 100)))), '{"text": "ok"}', 200, now()
     FROM "Trajectory" t, generate_series(0, 2) n`,
    [HISTORY],
  );
  await c.query("ANALYZE");
}

interface Sample {
  kind: string;
  ms: number;
  status: number;
}

const samples: Sample[] = [];
let measuring = false;

async function call(base: string, kind: string, proc: string, input: unknown): Promise<unknown> {
  const t = performance.now();
  let status = 0;
  let body: unknown = null;
  try {
    const res = await fetch(`${base}/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
    status = res.status;
    body = ((await res.json()) as { result?: { data?: { json?: unknown } } }).result?.data?.json ?? null;
  } catch {
    status = 0;
  }
  if (measuring) samples.push({ kind, ms: performance.now() - t, status });
  return body;
}

/** Repeats `fn` every `ms` (first call after a random offset, as tabs open at different moments) until `stop`. */
function every(ms: number, fn: () => Promise<unknown>, stop: () => boolean): Promise<void> {
  return (async () => {
    await new Promise((r) => setTimeout(r, Math.random() * ms));
    while (!stop()) {
      const t = performance.now();
      await fn();
      await new Promise((r) => setTimeout(r, Math.max(0, ms - (performance.now() - t))));
    }
  })();
}

function runPageTab(base: string, runId: string, stop: () => boolean): Promise<void>[] {
  const shown = [
    "reward/mean",
    "reward/std",
    "loss/policy",
    "kl",
    "entropy",
    "response/length_mean",
    "env/turns_mean",
    "time/rollout_s",
    "time/update_s",
    "grad/norm",
  ];
  return [
    every(2000, () => call(base, "run page: run", "runs.get", { id: runId }), stop),
    every(3000, () => call(base, "run page: curves", "runs.metricSeries", { id: runId, keys: shown, maxPoints: 400 }), stop),
    every(3000, () => call(base, "run page: events", "runs.events", { id: runId, limit: 200 }), stop),
    every(5000, () => call(base, "run page: metric keys", "runs.metricKeys", { id: runId }), stop),
    every(10_000, () => call(base, "run page: checkpoints", "runActions.checkpoints", { id: runId }), stop),
  ];
}

function runsListTab(base: string, ids: string[], stop: () => boolean): Promise<void>[] {
  return [
    every(2000, () => call(base, "runs list", "runs.list", { limit: 30 }), stop),
    every(5000, () => call(base, "runs list: sparklines", "runs.sparklines", { ids }), stop),
  ];
}

function browserTab(base: string, stop: () => boolean): Promise<void>[] {
  let page = Math.floor(Math.random() * 50);
  return [
    every(
      1000,
      async () => {
        page = (page + 1) % 200;
        const list = (await call(base, "browser: page", "trajectories.list", {
          runId: HISTORY,
          sort: "step",
          dir: "desc",
          limit: 50,
          offset: page * 50,
        })) as {
          items?: { id: string }[];
        } | null;
        const pick = list?.items?.[Math.floor(Math.random() * (list.items.length || 1))];
        if (pick) await call(base, "inspector: trajectory", "trajectories.get", { runId: HISTORY, id: pick.id });
      },
      stop,
    ),
  ];
}

async function stepSeconds(db: ReturnType<typeof createPrismaClient>, runId: string, from: Date, to: Date): Promise<number | null> {
  const points = await db.metricPoint.findMany({
    where: { runId, key: "reward/mean", wallTime: { gte: from, lte: to } },
    orderBy: { step: "asc" },
  });
  if (points.length < 2) return null;
  return (points[points.length - 1].wallTime.getTime() - points[0].wallTime.getTime()) / 1000 / (points.length - 1);
}

const pct = (xs: number[], q: number) => Number(xs[Math.min(xs.length - 1, Math.floor(q * xs.length))].toFixed(1));
function summary(xs: Sample[]) {
  const ms = xs.map((s) => s.ms).sort((a, b) => a - b);
  return {
    requests: xs.length,
    errors: xs.filter((s) => s.status !== 200).length,
    p50_ms: pct(ms, 0.5),
    p95_ms: pct(ms, 0.95),
    p99_ms: pct(ms, 0.99),
  };
}

/** 1-minute load average, sampled every 5 s while `during()` is true. */
function sampleLoad(during: () => boolean): Promise<number[]> {
  return new Promise((resolve) => {
    const seen: number[] = [];
    const timer = setInterval(() => {
      if (during()) seen.push(os.loadavg()[0]);
      else {
        clearInterval(timer);
        resolve(seen);
      }
    }, 5000);
  });
}

const round2 = (x: number) => Number(x.toFixed(2));

async function main() {
  const loadBefore = os.loadavg()[0];
  if (loadBefore > os.cpus().length) {
    console.error(
      `warning: load average ${loadBefore.toFixed(2)} on ${os.cpus().length} cores before the run: other work will show in the latencies.`,
    );
  }
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${DB}"`);
  await admin.end();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "rl-bench-load-"));
  const c = new pg.Client({ connectionString: dbUrl() });
  await c.connect();
  await applyMigrations(c);
  console.error("seeding a finished run (2,000 steps × 30 keys, 16,000 trajectories)…");
  await seedHistory(c);
  await c.end();
  const db = createPrismaClient(dbUrl(), 2);
  const live = await insertQueuedRun(db, {
    name: "live run",
    environment: "guess-number",
    policy: { model: "small" },
    grpo: { steps: 100_000, groupsPerStep: 4, groupSize: 8, minibatchSize: 32 },
    rollout: { maxTurns: 6, maxNewTokens: 8 },
    checkpoint: { saveFreq: 50 },
    evaluation: { testFreq: 0 },
  });

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "--no-seed"], {
    env: {
      ...process.env,
      DATABASE_URL: dbUrl(),
      PORT: String(port),
      START_WORKER: "true",
      ROLLOUT_LAB_DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    for (const deadline = Date.now() + 600_000; ;) {
      if ((await fetch(`${base}/api/health`).catch(() => null))?.ok && ((await db.run.findUnique({ where: { id: live } }))?.step ?? 0) >= 3)
        break;
      if (Date.now() > deadline) throw new Error("the app or the worker did not come up");
      await new Promise((r) => setTimeout(r, 500));
    }
    console.error(`training without load for ${SECONDS} s…`);
    const quietFrom = new Date();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const quietTo = new Date();

    console.error(`${TABS} tabs for ${SECONDS} s…`);
    let stopped = false;
    const stop = () => stopped;
    const loops: Promise<void>[] = [];
    const tabs = { runPage: Math.round(TABS * 0.6), runsList: Math.round(TABS * 0.2) };
    for (let i = 0; i < TABS; i++) {
      if (i < tabs.runPage) loops.push(...runPageTab(base, live, stop));
      else if (i < tabs.runPage + tabs.runsList) loops.push(...runsListTab(base, [live, HISTORY], stop));
      else loops.push(...browserTab(base, stop));
    }
    await new Promise((r) => setTimeout(r, 5000)); // tabs opening
    measuring = true;
    const loadDuring = sampleLoad(() => measuring);
    const loadFrom = new Date();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const loadTo = new Date();
    measuring = false;
    stopped = true;
    await Promise.all(loops);

    const during = await loadDuring;
    const machineLoad = { before: round2(loadBefore), during: during.length ? round2(Math.max(...during)) : null };
    const kinds = [...new Set(samples.map((s) => s.kind))].sort();
    const quiet = await stepSeconds(db, live, quietFrom, quietTo);
    const loaded = await stepSeconds(db, live, loadFrom, loadTo);
    const overall = summary(samples);
    console.error(
      `p95 ${overall.p95_ms} ms at load average ${machineLoad.before} before / ${machineLoad.during ?? "?"} during, on ${os.cpus().length} cores`,
    );
    console.log(
      JSON.stringify(
        {
          conditions: {
            tabs: TABS,
            seconds: SECONDS,
            cores: os.cpus().length,
            loadavg: os.loadavg().map((x) => Number(x.toFixed(2))),
            database: "PostgreSQL, 127.0.0.1:5432",
          },
          // p95 beside the 1-minute load average (before the run; the highest seen while measuring): compare p95s
          // only between runs whose load was alike.
          overall: { ...overall, loadavg_1m: machineLoad },
          byKind: Object.fromEntries(kinds.map((k) => [k, summary(samples.filter((s) => s.kind === k))])),
          training: {
            secondsPerStepQuiet: quiet,
            secondsPerStepUnderLoad: loaded,
            slowdown: quiet && loaded ? Number((loaded / quiet).toFixed(2)) : null,
          },
        },
        null,
        2,
      ),
    );
  } finally {
    app.kill("SIGTERM");
    await new Promise((r) => app.once("exit", r));
    await db.$disconnect();
    const a = new pg.Client({ connectionString: ADMIN });
    await a.connect();
    await a.query(`DROP DATABASE IF EXISTS "${DB}" WITH (FORCE)`);
    await a.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
