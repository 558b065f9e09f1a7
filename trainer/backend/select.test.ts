import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { BackendError, selectBackend } from "./select";

test("a forced backend that cannot load fails clearly instead of falling back", async () => {
  await assert.rejects(
    selectBackend({ ROLLOUT_LAB_BACKEND: "tensorflow" }),
    (e: unknown) => e instanceof BackendError && /tfjs-node-gpu/.test(e.message),
  );
  await assert.rejects(selectBackend({ ROLLOUT_LAB_BACKEND: "webgpu" }), /not a backend\. Use one of: tensorflow, wasm, cpu/);
});

test("forcing cpu selects cpu; the default picks the local wasm binaries and says why", async () => {
  const cpu = await selectBackend({ ROLLOUT_LAB_BACKEND: "cpu" }, { native: false });
  assert.equal(cpu.backend, "cpu");
  assert.equal(tf.getBackend(), "cpu");
  const auto = await selectBackend({}, { native: false });
  assert.equal(auto.backend, "wasm");
  assert.equal(tf.getBackend(), "wasm");
  assert.match(auto.reason, /skipped tensorflow/);
  assert.equal(auto.simd, true);
  assert.deepEqual(auto.nativeKernels, { enabled: false, reason: "disabled by caller" });
  await tf.setBackend("cpu");
});
