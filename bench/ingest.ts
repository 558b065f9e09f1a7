/**
 * npm run bench:ingest — runs trained elsewhere at their real size, through the real server (scripts/start.ts, no
 * worker) on a scratch database of the local PostgreSQL:
 *
 * 1. history: ONE request to POST /external-runs/{id}/batch holding 1,000 steps × 20 metric keys and 16 samples per
 *    step (20,000 points, 16,000 samples) — accepted or not, its wall time and body size;
 * 2. sustained metrics: BENCH_INGEST_ROUNDS requests of 1,000 steps × 20 keys to POST …/steps (the clients' route),
 *    points per second (goal ≥ 50,000);
 * 3. sustained samples: BENCH_INGEST_ROUNDS × 10 requests of 200 samples to POST …/trajectories, samples per second
 *    (goal ≥ 1,000).
 *
 * Prints JSON with the figures and `conditions` (load average before/after, cores, versions). Figures on a loaded
 * machine are noise; rerun quietly. Env: TEST_PG_ADMIN_URL (default postgresql://postgres@127.0.0.1:5432/postgres),
 * BENCH_INGEST_ROUNDS (default 5), PORT (default: a free one).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import pg from "pg";
import { applyMigrations } from "../db/migrate";
import { createPrismaClient } from "../db/client";
import { createToken } from "../server/services/tokens";
import { freePort } from "../tests/integration/helpers/start-app";

const ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 5);
const STEPS = 1000;
const KEYS = Array.from({ length: 20 }, (_, k) => (k === 0 ? "reward/mean" : `train/key_${String(k).padStart(2, "0")}`));
const PER_STEP = 16;
const adminUrl = process.env.TEST_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

function steps(offset = 0) {
  return Array.from({ length: STEPS }, (_, i) => ({
    step: offset + i,
    metrics: Object.fromEntries(KEYS.map((k, j) => [k, Math.sin((offset + i) / 50 + j) + j / 10])),
  }));
}

function samples(fromStep: number, count: number, tag: string) {
  return Array.from({ length: count }, (_, n) => {
    const step = fromStep + Math.floor(n / PER_STEP);
    const k = n % PER_STEP;
    return {
      id: `${tag}-${step}-${k}`,
      step,
      group: `prompt-${k % 4}`,
      reward: k % 5 === 0 ? null : (k % 3) / 2,
      rewardComponents: { correct: k % 2 },
      conversation: [
        { role: "system", content: "You are a careful assistant. Answer with the number only." },
        { role: "user", content: `Question ${step}-${k % 4}: what is ${step} + ${k % 4}?` },
        { role: "assistant", content: `The answer is ${step + (k % 4)}.` },
      ],
    };
  });
}

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const loadBefore = os.loadavg();
const name = `rl_bench_ingest_${randomBytes(4).toString("hex")}`;
await admin(`CREATE DATABASE "${name}"`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const port = Number(process.env.PORT) || (await freePort());
const base = `http://127.0.0.1:${port}`;
let app: ReturnType<typeof spawn> | null = null;
try {
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  await applyMigrations(c);
  const pgVersion = (await c.query("SHOW server_version")).rows[0].server_version as string;
  await c.end();
  const db = createPrismaClient(url.toString(), 2);
  const { token } = await createToken(db, { name: "bench", scopes: ["ingest"] });
  await db.$disconnect();

  app = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "--no-seed"], {
    env: { ...process.env, DATABASE_URL: url.toString(), PORT: String(port), START_WORKER: "false", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (const deadline = Date.now() + 300_000; !(await fetch(`${base}/api/health`).catch(() => null))?.ok;) {
    if (Date.now() > deadline || app.exitCode !== null) throw new Error("the server did not come up (its output is above)");
    await new Promise((r) => setTimeout(r, 300));
  }
  const post = async (path: string, body: unknown) => {
    const text = JSON.stringify(body);
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: text,
    });
    const reply = (await res.json()) as Record<string, unknown>;
    return { status: res.status, reply, seconds: (performance.now() - t0) / 1000, bytes: Buffer.byteLength(text) };
  };
  const createRun = async (label: string) => (await post("/external-runs", { name: `bench ${label}`, source: "other" })).reply.id as string;

  // Warm-up: the first request of each route compiles its code paths.
  const warm = await createRun("warm-up");
  await post(`/external-runs/${warm}/batch`, { steps: steps().slice(0, 10), trajectories: samples(0, 32, "warm") });

  console.error("history: 1,000 steps × 20 keys + 16,000 samples in one request…");
  const historyRun = await createRun("history");
  const history = await post(`/external-runs/${historyRun}/batch`, { steps: steps(), trajectories: samples(0, STEPS * PER_STEP, "h") });

  console.error(`sustained metrics: ${ROUNDS} × 20,000 points…`);
  const metricsRun = await createRun("metrics");
  const metricTimes: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const res = await post(`/external-runs/${metricsRun}/steps`, { steps: steps(r * STEPS) });
    if (res.status !== 200) throw new Error(`steps round ${r}: ${res.status} ${JSON.stringify(res.reply)}`);
    metricTimes.push(res.seconds);
  }

  console.error(`sustained samples: ${ROUNDS * 10} × 200…`);
  const samplesRun = await createRun("samples");
  const sampleTimes: number[] = [];
  for (let r = 0; r < ROUNDS * 10; r++) {
    const res = await post(`/external-runs/${samplesRun}/trajectories`, { trajectories: samples(r * 13, 200, `s${r}`) });
    if (res.status !== 200) throw new Error(`samples round ${r}: ${res.status} ${JSON.stringify(res.reply)}`);
    sampleTimes.push(res.seconds);
  }

  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const pointsPerSecond = (STEPS * KEYS.length * ROUNDS) / sum(metricTimes);
  const samplesPerSecond = (200 * ROUNDS * 10) / sum(sampleTimes);
  console.log(
    JSON.stringify(
      {
        bench: "ingest",
        history: {
          request: "POST /external-runs/{id}/batch",
          steps: STEPS,
          keys: KEYS.length,
          samples: STEPS * PER_STEP,
          bodyMB: round(history.bytes / 1e6, 1),
          accepted: history.status === 200,
          status: history.status,
          reply: history.reply,
          seconds: round(history.seconds, 2),
        },
        sustained: {
          metricPointsPerSecond: Math.round(pointsPerSecond),
          metricGoal: 50_000,
          metricRequests: metricTimes.map((t) => round(t, 2)),
          samplesPerSecond: Math.round(samplesPerSecond),
          samplesGoal: 1000,
          sampleRequestMedianSeconds: round([...sampleTimes].sort((a, b) => a - b)[Math.floor(sampleTimes.length / 2)], 3),
        },
        conditions: {
          loadavgBefore: loadBefore.map((x) => round(x, 2)),
          loadavgAfter: os.loadavg().map((x) => round(x, 2)),
          cores: os.cpus().length,
          node: process.version,
          postgres: pgVersion,
          commit: spawnSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).stdout.trim(),
          server: "scripts/start.ts --no-seed (next start), no worker",
        },
      },
      null,
      2,
    ),
  );
} finally {
  if (app && app.exitCode === null) {
    const exited = new Promise((r) => app!.once("exit", r));
    app.kill("SIGTERM");
    await exited;
  }
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

function round(v: number, digits: number): number {
  return Math.round(v * 10 ** digits) / 10 ** digits;
}
