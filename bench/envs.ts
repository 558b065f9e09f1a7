/**
 * npm run bench:envs — the environment server under concurrent sessions: for guess-number, tau2-retail and bfcl
 * (offline simulators), 1, 16 and 128 WebSocket sessions each play gold episodes back to back for
 * BENCH_ENVS_SECONDS (default 10) against a server in its own process (recording into PostgreSQL as in
 * production). Prints JSON: episodes/s, step latency p50 / p95 / max as the client sees it, errors (an error
 * message, a refused connection, or a reward other than the gold one), and the memory one session holds mid-episode
 * (heap after GC from 256 open sessions per environment, measured first, on the fresh server; RSS as is), with the load average before and after.
 * Goal: 128 sessions, 0 errors, p95 step ≤ 50 ms for the offline tool environments on a 2-core machine.
 *
 * Each level runs twice: closed loop (the next action leaves the moment the observation arrives: the server's
 * saturation, where latency is queueing, ≈ sessions × CPU per request) and with a policy's think time per turn
 * (BENCH_ENVS_THINK_MS, default 100 ms: a fast LLM turn; a trainer's sessions spend most of their time generating).
 *
 * Env: BENCH_ENVS_SECONDS, BENCH_ENVS_CONCURRENCY (e.g. "1,16,128"), BENCH_ENVS_THINK_MS, BENCH_PG_ADMIN_URL. Database: rl_bench_envs
 * (prefixed with TEST_DB_PREFIX when set), recreated each run. Node 20 needs --experimental-websocket (the npm script passes it).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchDbUrl, openBenchDb } from "./bench-db";
import { goldEpisodes, type GoldEpisode } from "../tests/integration/helpers/env-server";

const ENVS = ["guess-number", "tau2-retail", "bfcl"];
const SECONDS = Number(process.env.BENCH_ENVS_SECONDS ?? 10);
const LEVELS = (process.env.BENCH_ENVS_CONCURRENCY ?? "1,16,128").split(",").map(Number);
const THINK_MS = Number(process.env.BENCH_ENVS_THINK_MS ?? 100);
const MEMORY_SESSIONS = 256;
const loadAverage = () => os.loadavg().map((x) => Number(x.toFixed(2)));

if (typeof WebSocket === "undefined") throw new Error("Run with Node ≥ 22 or node --experimental-websocket (npm run bench:envs does).");

interface Peer {
  request(message: unknown): Promise<{ type: string; data: Record<string, unknown> }>;
  close(): void;
}

async function connect(url: string): Promise<Peer> {
  const ws = new WebSocket(url);
  const waiting: ((m: { type: string; data: Record<string, unknown> }) => void)[] = [];
  ws.onmessage = (e) => waiting.shift()?.(JSON.parse(String(e.data)));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`connection to ${url} refused`));
  });
  return {
    request: (m) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        ws.send(JSON.stringify(m));
      }),
    close: () => ws.send(JSON.stringify({ type: "close" })),
  };
}

async function startServer(databaseUrl: string, dataDir: string): Promise<{ port: number; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ["--expose-gc", "--import", "tsx", "trainer/env-server/main.ts", "--port", "0", "--max-sessions", "1024"],
    { env: { ...process.env, DATABASE_URL: databaseUrl, ROLLOUT_LAB_DATA_DIR: dataDir }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:(\d+)\/envs/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`environment server exited (${code}): ${out}`)));
  });
  return {
    port,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

const percentile = (xs: number[], q: number) =>
  xs.length ? Number(xs[Math.min(xs.length - 1, Math.floor(q * xs.length))].toFixed(1)) : null;

/** `sessions` clients each play gold episodes back to back until the time is up. */
async function measure(base: string, env: string, gold: GoldEpisode[], sessions: number, thinkMs: number) {
  const steps: number[] = [];
  const resets: number[] = [];
  const errors: string[] = [];
  let episodes = 0;
  let requests = 0;
  let warm = true;
  const deadline = { at: Infinity };
  const client = async (i: number) => {
    let peer: Peer;
    try {
      peer = await connect(`${base}/envs/${env}/ws`);
    } catch (e) {
      errors.push((e as Error).message);
      return;
    }
    for (let n = 0; Date.now() < deadline.at; n++) {
      const g = gold[(i + n) % gold.length];
      let t = performance.now();
      requests++;
      const opened = await peer.request({
        type: "reset",
        data: { task_id: g.taskId, seed: n, max_turns: g.maxTurns, experiment: `bench-${env}-${sessions}` },
      });
      if (!warm) resets.push(performance.now() - t);
      if (opened.type !== "observation") {
        errors.push(String(opened.data.message));
        continue;
      }
      let last = opened;
      for (const action of g.actions) {
        if (thinkMs) await new Promise((r) => setTimeout(r, thinkMs));
        t = performance.now();
        requests++;
        last = await peer.request({ type: "step", data: action });
        if (!warm) steps.push(performance.now() - t);
        if (last.type !== "observation" || last.data.done) break;
      }
      if (last.type !== "observation") errors.push(String(last.data.message));
      else if (last.data.reward !== g.expectedReward) errors.push(`${g.taskId}: reward ${last.data.reward}, gold ${g.expectedReward}`);
      else if (!warm) episodes++;
    }
    peer.close();
  };
  const cpuBefore = await serverCpuMs(base);
  // One second of warm-up (JIT, caches), then the measured window.
  deadline.at = Date.now() + 1000 + SECONDS * 1000;
  const started = Promise.all(Array.from({ length: sessions }, (_, i) => client(i)));
  await new Promise((r) => setTimeout(r, 1000));
  warm = false;
  const t0 = performance.now();
  await started;
  const seconds = (performance.now() - t0) / 1000;
  const serverCpu = (await serverCpuMs(base)) - cpuBefore;
  steps.sort((a, b) => a - b);
  resets.sort((a, b) => a - b);
  return {
    sessions,
    think_ms: thinkMs,
    episodes,
    episodes_per_s: Number((episodes / seconds).toFixed(1)),
    steps: steps.length,
    step_ms: { p50: percentile(steps, 0.5), p95: percentile(steps, 0.95), max: percentile(steps, 1) },
    reset_ms: { p50: percentile(resets, 0.5), p95: percentile(resets, 0.95) },
    // The server's own CPU (user + sys) per reset or step, recording included: what a quiet core could serve.
    server_cpu_ms_per_request: Number((serverCpu / requests).toFixed(3)),
    errors: errors.length,
    first_errors: [...new Set(errors)].slice(0, 3),
  };
}

async function serverCpuMs(base: string): Promise<number> {
  const { cpu_ms } = await (await fetch(`${base}/health`)).json();
  return cpu_ms.user + cpu_ms.system;
}

async function health(base: string, gc = false) {
  return (await fetch(`${base}/health${gc ? "?gc=1" : ""}`)).json() as Promise<{
    memory: { rss_bytes: number; heap_used_bytes: number };
    recording_backlog: number;
  }>;
}

/** The server's memory after GC, once every finished episode has been written (queued episodes are not sessions). */
async function settledMemory(base: string) {
  for (let i = 0; i < 100 && (await health(base)).recording_backlog > 0; i++) await new Promise((r) => setTimeout(r, 200));
  await new Promise((r) => setTimeout(r, 500));
  return (await health(base, true)).memory;
}

async function openSessions(base: string, env: string, gold: GoldEpisode[], n: number): Promise<Peer[]> {
  const peers = await Promise.all(Array.from({ length: n }, () => connect(`${base}/envs/${env}/ws`)));
  await Promise.all(
    peers.map(async (p, i) => {
      const g = gold[i % gold.length];
      await p.request({ type: "reset", data: { task_id: g.taskId, seed: i, max_turns: g.maxTurns, experiment: "bench-memory" } });
      await p.request({ type: "step", data: g.actions[0] });
    }),
  );
  return peers;
}

/**
 * Heap per session: MEMORY_SESSIONS sessions held mid-episode (reset + one step), heap after GC with them open minus
 * the mean of before and after (the environment's caches warmed by a first round). RSS is shown as is: it moves by
 * whole allocator arenas.
 */
async function memoryPerSession(base: string, env: string, gold: GoldEpisode[]) {
  for (const p of await openSessions(base, env, gold, 8)) p.close();
  const before = await settledMemory(base);
  const peers = await openSessions(base, env, gold, MEMORY_SESSIONS);
  const during = (await health(base, true)).memory;
  for (const p of peers) p.close();
  const after = await settledMemory(base);
  const mib = (bytes: number) => Number((bytes / 2 ** 20).toFixed(1));
  const baseline = (before.heap_used_bytes + after.heap_used_bytes) / 2;
  return {
    sessions: MEMORY_SESSIONS,
    heap_kib_per_session: Number(((during.heap_used_bytes - baseline) / MEMORY_SESSIONS / 1024).toFixed(1)),
    heap_mib: { before: mib(before.heap_used_bytes), with_sessions: mib(during.heap_used_bytes), after: mib(after.heap_used_bytes) },
    rss_mib: { before: mib(before.rss_bytes), with_sessions: mib(during.rss_bytes), after: mib(after.rss_bytes) },
  };
}

// Prefixed like the tests' databases, so two checkouts benchmarking on one PostgreSQL do not drop each other's.
const dbName = `${process.env.TEST_DB_PREFIX ? `${process.env.TEST_DB_PREFIX.toLowerCase()}_` : ""}rl_bench_envs`;
await (await openBenchDb(dbName, true)).end();
const dataDir = mkdtempSync(path.join(os.tmpdir(), "rl-bench-envs-"));
const loadBefore = loadAverage();
const server = await startServer(benchDbUrl(dbName), dataDir);
const base = `http://127.0.0.1:${server.port}`;
const results: Record<string, unknown> = {};
try {
  const memoryByEnv: Record<string, unknown> = {};
  for (const env of ENVS) memoryByEnv[env] = await memoryPerSession(base, env, await goldEpisodes(env));
  for (const env of ENVS) {
    const gold = await goldEpisodes(env);
    const levels = [];
    for (const sessions of LEVELS) {
      for (const think of [0, THINK_MS]) {
        levels.push(await measure(base, env, gold, sessions, think));
        console.error(`${env} × ${sessions}, think ${think} ms: ${JSON.stringify(levels[levels.length - 1])}`);
      }
    }
    await new Promise((r) => setTimeout(r, 500));
    results[env] = {
      gold_episodes: gold.length,
      steps_per_episode: Number((gold.reduce((s, g) => s + g.actions.length, 0) / gold.length).toFixed(1)),
      levels,
      memory: await memoryPerSession(base, env, gold),
    };
  }
  const health = await (await fetch(`${base}/health`)).json();
  console.log(
    JSON.stringify(
      {
        conditions: {
          cores: os.availableParallelism(),
          loadAverageBefore: loadBefore,
          loadAverageAfter: loadAverage(),
          node: process.version,
          seconds_per_level: SECONDS,
          server:
            "its own process (npx rollout-lab envs serve), clients in this one; offline simulators; episodes recorded to PostgreSQL 127.0.0.1:5432",
          episodes_recorded: health.episodes_recorded,
          recording_backlog_at_end: health.recording_backlog,
        },
        goal: "128 sessions, 0 errors, p95 step ≤ 50 ms (offline tool environments)",
        results,
      },
      null,
      2,
    ),
  );
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
