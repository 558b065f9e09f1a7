import { test, after } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { chooseTrainingBackend, placeRun } from "./placement";
import { selectBackend } from "./select";
import { loadBlasAddon } from "./native/addon";
import { disableNativeKernels } from "./native/index";
import { FUSED } from "./native/fused-kernels";

const GiB = 2 ** 30;

after(async () => {
  disableNativeKernels("cpu");
  disableNativeKernels("wasm");
  await tf.setBackend("cpu");
});

test("a step past the wasm heap trains on the cpu backend; forced and non-wasm backends are never changed", () => {
  assert.deepEqual(chooseTrainingBackend(1 * GiB, "wasm", false), { backend: "wasm", reason: null });
  const big = chooseTrainingBackend(8 * GiB, "wasm", false);
  assert.equal(big.backend, "cpu");
  assert.match(big.reason ?? "", /needs ~8\.0 GiB, more than the wasm heap gives \(3\.5 GiB of its 4 GiB\)/);
  assert.equal(
    chooseTrainingBackend(8 * GiB, "wasm", true).backend,
    "wasm",
    "ROLLOUT_LAB_BACKEND=wasm is obeyed (and fails loudly if it must)",
  );
  assert.equal(chooseTrainingBackend(64 * GiB, "tensorflow", false).backend, "tensorflow");
});

test("placeRun switches per run: a large run onto cpu with native kernels, the next small one back onto wasm", async () => {
  const selected = await selectBackend({ ROLLOUT_LAB_BACKEND: "wasm" });
  const large = await placeRun(selected, 6 * GiB, {});
  assert.equal(tf.getBackend(), "cpu");
  assert.equal(large.backend, "cpu");
  assert.match(large.reason, /trains on the cpu backend, tensors in JavaScript memory/);
  if (loadBlasAddon().addon) {
    assert.equal(large.nativeKernels.enabled, true, large.nativeKernels.reason);
    assert.ok(tf.getKernel(FUSED.attention, "cpu"), "the fused kernels serve the cpu backend's arrays");
  }
  const small = await placeRun(selected, 0.1 * GiB, {});
  assert.equal(tf.getBackend(), "wasm");
  assert.deepEqual(small, selected);
});
