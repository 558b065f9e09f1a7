/**
 * Threads that take cores from the compute threads without doing the step's work.
 *
 * After a threaded OpenBLAS product, its worker threads must go to sleep rather than spin: between the trainer's
 * products the cores belong to oneDNN, the fused kernels and V8, and a spinning worker burned 2.3 s of a 13.5 s
 * 0.5B bf16 step (addon.ts, keepOpenBlasThreadsFromSpinning). Each case runs in a fresh process because OpenBLAS
 * reads its thread timeout once, when the addon loads.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import os from "node:os";
import { loadBlasAddon } from "./addon";
import { heapMarkingFor, MAIN_THREAD_MARKING_MIN_PARAMETERS } from "../heap-marking";

const built = loadBlasAddon().addon !== null;
const cores = os.availableParallelism();

/** CPU milliseconds the process used in the 300 ms after one [768,768]x[768,768] product on 2 OpenBLAS threads. */
const CHILD = `
import { loadBlasAddon } from "./trainer/backend/native/addon.ts";
const { addon } = loadBlasAddon();
const n = 768;
const a = new Float32Array(n * n).fill(0.5), b = new Float32Array(n * n).fill(0.25), out = new Float32Array(n * n);
for (let i = 0; i < 3; i++) addon.gemm(1, 0, 0, n, n, n, a, 0, 0, b, 0, 0, out, 0);
if (Math.abs(out[0] - n / 8) > 1e-3) throw new Error("wrong product " + out[0]);
const c0 = process.cpuUsage();
await new Promise((r) => setTimeout(r, 300));
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ idleCpuMs: (c.user + c.system) / 1000, timeout: process.env.OPENBLAS_THREAD_TIMEOUT }));
`;

function idleCpuAfterProduct(env: NodeJS.ProcessEnv): { idleCpuMs: number; timeout: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD], {
    cwd: new URL("../../..", import.meta.url).pathname,
    env: { ...env, OPENBLAS_NUM_THREADS: "2" },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
}

const { OPENBLAS_THREAD_TIMEOUT: _unset, ...envWithoutTimeout } = process.env;

test(
  "OpenBLAS's worker sleeps right after a product: the idle trainer uses (almost) no CPU",
  { skip: !built ? "native addon not built (node native/build.mjs)" : cores < 2 ? "one core: OpenBLAS runs no worker" : false },
  () => {
    const quiet = idleCpuAfterProduct(envWithoutTimeout);
    assert.equal(quiet.timeout, "4", "the addon sets OpenBLAS's shortest spin when the user set none");
    // A spinning worker yields for 2^28 cycles (~70-130 ms at 2-4 GHz); a sleeping one costs nothing measurable.
    assert.ok(quiet.idleCpuMs < 25, `${quiet.idleCpuMs.toFixed(1)} ms of CPU in 300 ms of idling after a product`);
  },
);

test(
  "a thread timeout the user set is kept (OpenBLAS's default 2^28 cycles spins, which this test tells apart)",
  { skip: !built ? "native addon not built (node native/build.mjs)" : cores < 2 ? "one core: OpenBLAS runs no worker" : false },
  () => {
    const spinning = idleCpuAfterProduct({ ...envWithoutTimeout, OPENBLAS_THREAD_TIMEOUT: "28" });
    assert.equal(spinning.timeout, "28");
    assert.ok(spinning.idleCpuMs > 40, `only ${spinning.idleCpuMs.toFixed(1)} ms of CPU: the worker did not spin`);
  },
);

/**
 * Kilobytes V8's helper threads mark while a child allocates 1.6 GB of typed arrays, after it chose the heap marking
 * for a policy of `parameters` on the cpu backend (V8 traces each helper task and what it marked).
 *
 * Work, not tasks, tells the two markings apart: with concurrent marking switched off, V8 may still start a helper
 * during a collection's final pause (parallel marking, while the main thread waits and no kernel runs), and on a
 * loaded machine it did in 14 of 40 runs, marking the 4-6 KB the main thread had left. Concurrent marking marked
 * 5-10 MB of the same heap in each of 20 runs. (--no-parallel-marking is no way out: Node 20's V8 fails a CHECK with it.)
 */
function helperThreadMarking(parameters: number, env: NodeJS.ProcessEnv): { markedKb: number; note: string; laterSmallRun: string } {
  const script = `
import v8 from "node:v8";
import { useHeapMarkingFor } from "./trainer/backend/heap-marking.ts";
const note = useHeapMarkingFor(${parameters}, "cpu");
const laterSmallRun = useHeapMarkingFor(1_115_264, "cpu");
v8.setFlagsFromString("--trace-concurrent-marking");
const kept = [];
for (let i = 0; i < 400; i++) { const a = new Float32Array(1e6); a[0] = i; if (i % 50 === 0) kept.push(a); }
console.error(JSON.stringify({ note, laterSmallRun }));
`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: new URL("../../..", import.meta.url).pathname,
    env,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return {
    markedKb: [...r.stdout.matchAll(/Major task \d+ concurrently marked (\d+)KB/g)].reduce((kb, m) => kb + Number(m[1]), 0),
    ...(JSON.parse(r.stderr.trim().split("\n").at(-1)!) as { note: string; laterSmallRun: string }),
  };
}

test("heap marking: main thread for a policy of 10M+ parameters on the cpu backend, V8's default otherwise", () => {
  assert.equal(heapMarkingFor(MAIN_THREAD_MARKING_MIN_PARAMETERS, "cpu", {}), "main-thread");
  assert.equal(heapMarkingFor(494_032_768, "cpu", {}), "main-thread");
  assert.equal(heapMarkingFor(MAIN_THREAD_MARKING_MIN_PARAMETERS - 1, "cpu", {}), "concurrent");
  assert.equal(heapMarkingFor(494_032_768, "wasm", {}), "concurrent");
  assert.equal(heapMarkingFor(494_032_768, "cpu", { ROLLOUT_LAB_CONCURRENT_MARKING: "1" }), "concurrent");
});

test("a large policy on the cpu backend: V8's helper threads mark (next to) nothing; a small one's mark megabytes", () => {
  const { ROLLOUT_LAB_CONCURRENT_MARKING: _keep, ...env } = process.env;
  const large = helperThreadMarking(494_032_768, env);
  assert.ok(large.markedKb < 256, `helper threads marked ${large.markedKb} KB after switching to the main thread`);
  assert.match(large.note, /marks its heap on the main thread/);
  assert.match(large.laterSmallRun, /earlier run/, "a later small run in the same worker is told the switch stays");
  const small = helperThreadMarking(1_115_264, env);
  assert.ok(
    small.markedKb > 1024,
    `V8's default marked only ${small.markedKb} KB on helper threads (else this test could not tell the two apart)`,
  );
  assert.equal(small.note, "");
  assert.equal(small.laterSmallRun, "");
  const optedOut = helperThreadMarking(494_032_768, { ...env, ROLLOUT_LAB_CONCURRENT_MARKING: "1" });
  assert.ok(optedOut.markedKb > 1024, `ROLLOUT_LAB_CONCURRENT_MARKING=1: helper threads marked only ${optedOut.markedKb} KB`);
});
