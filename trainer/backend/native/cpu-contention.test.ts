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

/** The cpu backend's native-kernel report line, enabled in a fresh process (V8's flags are process-wide). */
function cpuBackendReport(env: NodeJS.ProcessEnv): string {
  const script = `
import * as tf from "@tensorflow/tfjs";
import { tryEnableNativeKernels } from "./trainer/backend/native/index.ts";
await tf.setBackend("cpu");
console.log(JSON.stringify((await tryEnableNativeKernels("cpu")).reason));
`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: new URL("../../..", import.meta.url).pathname,
    env,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
}

test(
  "on the cpu backend V8 marks its heap on the main thread, unless ROLLOUT_LAB_CONCURRENT_MARKING=1",
  { skip: !built ? "native addon not built (node native/build.mjs)" : false },
  () => {
    const { ROLLOUT_LAB_CONCURRENT_MARKING: _keep, ...env } = process.env;
    assert.match(cpuBackendReport(env), /V8 marks its heap on the main thread/);
    assert.doesNotMatch(cpuBackendReport({ ...env, ROLLOUT_LAB_CONCURRENT_MARKING: "1" }), /marks its heap/);
  },
);
