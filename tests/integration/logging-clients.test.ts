/**
 * The logging clients a trainer lives with (clients/python, clients/typescript), against a running server on the
 * real PostgreSQL: a training loop that logs through an outage never blocks and never sees an exception, retried
 * 5xx / 429 / dropped connections lose nothing, a server that is gone is a warning with bounded memory, numpy values
 * are logged, a restarted trainer continues its run, re-sent samples are upserts, batches are cut by bytes. The
 * faults come from a loopback proxy in front of the real server (helpers/flaky-proxy.ts).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { startApiServer, type ApiServer } from "./api-harness";
import { startFlakyProxy, type FlakyProxy } from "./helpers/flaky-proxy";
import { RolloutLabLogger } from "../../clients/typescript/rollout-lab-logger";

let server: ApiServer;
let proxy: FlakyProxy;
before(async () => {
  server = await startApiServer();
  proxy = await startFlakyProxy(server.base);
});
after(async () => {
  await proxy?.close();
  await server?.stop();
});

const SCRIPT = path.join(import.meta.dirname, "python/client_scenarios.py");
/** Debian's python3 when it has numpy (python3-numpy), else whatever python3 is on the path. */
const PYTHON = spawnSync("/usr/bin/python3", ["-c", "import numpy"]).status === 0 ? "/usr/bin/python3" : "python3";
const noPython = spawnSync(PYTHON, ["--version"]).status !== 0 ? "python3 is not installed" : false;
const isData = (p: string) => /\/(steps|trajectories)$/.test(p);

interface Scenario {
  lines: Record<string, unknown>[];
  stderr: string;
  code: number | null;
}

/** Runs a scenario; `onLine` sees each JSON line as it is printed and may answer on the script's stdin. */
function runPython(args: string[], onLine: (line: Record<string, unknown>, stdin: NodeJS.WritableStream) => void = () => {}) {
  return new Promise<Scenario>((resolve) => {
    const child = spawn(PYTHON, [SCRIPT, ...args], { env: process.env, stdio: ["pipe", "pipe", "pipe"] });
    const lines: Record<string, unknown>[] = [];
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    createInterface({ input: child.stdout }).on("line", (l) => {
      const parsed = JSON.parse(l) as Record<string, unknown>;
      lines.push(parsed);
      onLine(parsed, child.stdin);
    });
    child.on("close", (code) => resolve({ lines, stderr, code }));
  });
}

const db = () => server.db.prisma;

test(
  "Python: 100 steps × 16 samples with numpy-protocol values (.item(), .tolist()) land whole; NaN is not sent",
  { skip: noPython },
  async () => {
    const token = await server.token(["ingest"], "py-stream");
    const { lines, stderr, code } = await runPython(["stream", server.base, token, "100"]);
    assert.equal(code, 0, stderr);
    const r = lines.at(-1)!;
    assert.deepEqual([r.stored, r.updated, r.dropped], [1600, 0, 0], stderr);
    const runId = r.run_id as string;
    assert.equal(await db().trajectory.count({ where: { runId } }), 1600);
    assert.equal(await db().metricPoint.count({ where: { runId, key: "loss" } }), 0, "NaN dropped, not sent");
    const means = await db().metricPoint.findMany({ where: { runId, step: 1, key: { startsWith: "rewards/" } }, orderBy: { key: "asc" } });
    assert.deepEqual(
      means.map((p) => [p.key, p.value]),
      [
        ["rewards/max", 1],
        ["rewards/mean", 8 / 16],
        ["rewards/min", 0],
      ],
      "an array is logged as its mean, min and max",
    );
    const run = await db().run.findUniqueOrThrow({ where: { id: runId } });
    assert.deepEqual([run.status, run.step, (run.config as { lr: number }).lr], ["succeeded", 100, 1e-6]);
  },
);

test("Python with numpy itself: float32 rewards, int64 steps, arrays and a NaN reward (unscored)", { skip: noPython }, async (t) => {
  const token = await server.token(["ingest"], "py-numpy");
  const { lines, stderr, code } = await runPython(["numpy", server.base, token]);
  assert.equal(code, 0, stderr);
  const r = lines.at(-1)!;
  if (r.skipped) return t.skip(String(r.skipped));
  const runId = r.run_id as string;
  assert.deepEqual([r.stored, r.dropped], [13, 0], stderr);
  const points = await db().metricPoint.findMany({ where: { runId, step: 2 }, orderBy: { key: "asc" } });
  assert.deepEqual(
    points.map((p) => [p.key, p.value]),
    [
      ["count", 4],
      ["ok", 1],
      ["reward/mean", 0.625],
      ["rewards/max", 1],
      ["rewards/mean", 0.625],
      ["rewards/min", 0],
    ],
  );
  const unscored = await db().trajectory.findFirstOrThrow({ where: { runId, reward: null } });
  assert.equal(unscored.status, "unscored", "a NaN reward is unscored, never 0");
  assert.equal(await db().trajectory.count({ where: { runId, reward: 0.5 } }), 3);
});

test(
  "Python: the training loop runs through an outage (503, 429, dropped connections) without blocking; finish() delivers everything",
  { skip: noPython },
  async () => {
    const token = await server.token(["ingest"], "py-outage");
    let down = true;
    proxy.setFault(({ path: p, n }) => (!down || !isData(p) ? null : ([503, 429, "hang-up", 500] as const)[n % 4]));
    let dataWhileDown = -1;
    const faulted = () => proxy.log.filter((l) => isData(l.path) && l.fault !== null).length;
    const before = faulted();
    const { lines, stderr, code } = await runPython(["outage", proxy.url, token], (line, stdin) => {
      if (!line.loop_done) return;
      void (async () => {
        // The loop is done; the client keeps trying in the background. Let it fail a few times, then bring the server back.
        for (let waited = 0; faulted() - before < 4 && waited < 20_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
        dataWhileDown = await db().trajectory.count({ where: { runId: line.run_id as string } });
        down = false;
        stdin.write("\n");
      })();
    });
    proxy.setFault(() => null);
    assert.equal(code, 0, stderr);
    assert.equal(lines[0].loop_done, true);
    assert.equal(lines[0].stored, 0, "the training loop finished before anything could be sent");
    assert.equal(dataWhileDown, 0, "nothing got through while the server refused every batch");
    const r = lines.at(-1)!;
    assert.deepEqual([r.stored, r.points, r.dropped], [160, 100, 0], stderr);
    assert.ok((r.failed_requests as number) >= 4, `retried (${String(r.failed_requests)} failed requests)`);
    assert.equal(await db().trajectory.count({ where: { runId: r.run_id as string } }), 160);
  },
);

test(
  "Python: a server that is gone is a warning, never an exception; memory stays bounded (new data dropped)",
  { skip: noPython },
  async () => {
    const token = await server.token(["ingest"], "py-gone");
    proxy.setFault(({ path: p, method }) => (method === "POST" && p !== "/api/v1/external-runs" ? "hang-up" : null));
    const { lines, stderr, code } = await runPython(["gone", proxy.url, token]);
    proxy.setFault(() => null);
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /Traceback/);
    assert.match(stderr, /the send queue is full \(20000 bytes/);
    assert.match(stderr, /the server has not answered for \d+ s/);
    assert.match(stderr, /could not mark the run succeeded/);
    const r = lines.at(-1)!;
    assert.ok((r.dropped as number) > 50, `dropped ${String(r.dropped)} of 110`);
    assert.equal(r.stored, 0);
  },
);

test(
  "Python: a restarted trainer continues the same run by its run key; the queue is flushed at exit without finish()",
  { skip: noPython },
  async () => {
    const token = await server.token(["ingest"], "py-resume");
    const key = `py-resume-${Date.now()}`;
    const first = await runPython(["resume", server.base, token, key]);
    assert.equal(first.code, 0, first.stderr);
    const second = await runPython(["resume", server.base, token, key]);
    assert.equal(second.code, 0, second.stderr);
    const [a, b] = [first.lines.at(-1)!, second.lines.at(-1)!];
    assert.deepEqual([a.resumed, a.start_step, b.resumed, b.start_step, b.run_id], [false, 0, true, 5, a.run_id]);
    const runId = a.run_id as string;
    assert.equal(await db().run.count({ where: { runKey: key } }), 1);
    assert.equal(await db().trajectory.count({ where: { runId } }), 40, "steps 0-4 (flushed at exit) and 5-9");
    const run = await db().run.findUniqueOrThrow({ where: { id: runId } });
    assert.deepEqual([run.status, run.step], ["succeeded", 10]);
  },
);

test(
  "Python: re-sent samples are upserted (stats say so), a bad sample is named and left out, large samples go in batches by bytes",
  { skip: noPython },
  async () => {
    const token = await server.token(["ingest"], "py-upsert");
    const { lines, stderr, code } = await runPython(["upsert", server.base, token]);
    assert.equal(code, 0, stderr);
    const r = lines.at(-1)!;
    assert.deepEqual([r.stored, r.updated, r.unchanged, r.dropped], [205, 1, 1, 1], stderr);
    assert.match(stderr, /refused one of the trajectories \(.*trajectories\.2\.reward/);
    const late = await db().trajectory.findFirstOrThrow({ where: { runId: r.run_id as string, reasoning: "judged again" } });
    assert.equal(late.reward, 1);
  },
);

test("TypeScript: logging returns at once during an outage, retries until the server is back, batches 200 samples of 6 KB by bytes", async () => {
  const token = await server.token(["ingest"], "ts-client");
  const warnings: string[] = [];
  const rl = new RolloutLabLogger(proxy.url, token, { flushIntervalMs: 50, maxBackoffMs: 200, warn: (m) => warnings.push(m) });
  await rl.createRun({ name: "ts outage", source: "other", runKey: `ts-${Date.now()}`, resume: "allow" });
  let down = true;
  proxy.setFault(({ path: p, n }) => (down && isData(p) ? ([500, 429, "hang-up"] as const)[n % 3] : null));
  const pad = "x".repeat(6000);
  for (let step = 0; step < 10; step++) {
    rl.logStep(step, { "reward/mean": step / 10, rewards: new Float32Array([0, 0.5, 1]), tokens: BigInt(step), loss: NaN });
    rl.logSamples(
      Array.from({ length: 20 }, (_, k) => ({
        id: `${step}-${k}`,
        step,
        group: `p${k % 2}`,
        reward: k % 5 === 0 ? NaN : k / 20,
        conversation: [
          { role: "user", content: `q${k % 2} ${pad}` },
          { role: "assistant", content: `a${k}` },
        ],
      })),
    );
  }
  for (let waited = 0; rl.stats.failedRequests < 3 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  assert.ok(rl.stats.failedRequests >= 3, "the client kept retrying in the background");
  assert.equal(await db().trajectory.count({ where: { runId: rl.runId! } }), 0, "nothing got through while the server was down");
  down = false;
  const stats = await rl.finish();
  proxy.setFault(() => null);
  assert.deepEqual([stats.stored, stats.dropped], [200, 0], warnings.join("\n"));
  const bodies = proxy.log.filter((l) => l.path.endsWith("/trajectories") && l.fault === null);
  assert.ok(bodies.length >= 2, "200 samples of 6 KB went in more than one request (each under the 1 MiB limit)");
  const runId = rl.runId!;
  assert.equal(await db().trajectory.count({ where: { runId, reward: null, status: "unscored" } }), 40);
  const keys = await db().metricPoint.findMany({ where: { runId, step: 3 }, select: { key: true } });
  assert.deepEqual(keys.map((k) => k.key).sort(), ["reward/mean", "rewards/max", "rewards/mean", "rewards/min", "tokens"]);

  const again = new RolloutLabLogger(server.base, token, { flushIntervalMs: 50 });
  await again.createRun({
    name: "ts outage",
    source: "other",
    runKey: (await db().run.findUniqueOrThrow({ where: { id: runId } })).runKey!,
    resume: "must",
  });
  assert.deepEqual([again.runId, again.resumed, again.startStep], [runId, true, 10]);
  await again.finish();
});
