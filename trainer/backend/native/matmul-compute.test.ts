import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { loadBlasAddon, type BlasAddon } from "./addon";
import { roundToBf16, selectMatmulCompute, worstRelativeError, PRODUCT_TOLERANCE } from "./matmul-compute";
import { disableNativeKernels, tryEnableNativeKernels } from "./index";

const { addon } = loadBlasAddon();
const bf16Built = Boolean(addon?.setCompute && addon.computeLibrary && !addon.computeLibrary().startsWith("none"));
const skipNative = addon ? false : "native addon not built (apt-get install libopenblas-dev; node native/build.mjs)";
const skipBf16 = bf16Built ? false : "addon built without oneDNN (apt-get install libdnnl-dev; node native/build.mjs)";

test("roundToBf16 rounds to nearest, ties to even, as torch's .to(torch.bfloat16)", () => {
  assert.equal(roundToBf16(1), 1);
  // 1 + 2^-8 lies exactly between 1 and 1 + 2^-7: ties go to the even mantissa (1)
  assert.equal(roundToBf16(1 + 2 ** -8), 1);
  // 1 + 3 * 2^-8 lies between 1 + 2^-7 and 1 + 2^-6: tie to even goes up
  assert.equal(roundToBf16(1 + 3 * 2 ** -8), 1 + 2 ** -6);
  assert.equal(roundToBf16(1 + 2 ** -8 + 2 ** -12), 1 + 2 ** -7);
  assert.ok(Number.isNaN(roundToBf16(NaN)));
});

test("fp32 products of the native addon agree with float64 on this CPU", { skip: skipNative }, () => {
  const report = selectMatmulCompute("fp32", addon);
  assert.equal(report.compute, "fp32");
  assert.ok(worstRelativeError(addon!, "fp32") < PRODUCT_TOLERANCE);
});

test("bf16 compute multiplies the rounded operands and accumulates in fp32; fp32 comes back on request", { skip: skipBf16 }, async () => {
  const report = selectMatmulCompute("bf16", addon);
  try {
    assert.equal(report.compute, "bf16", report.reason);
    assert.match(report.reason, /oneDNN/);
    // Through the TF.js kernel a user's matMul goes through: x = 1 + 2^-10 is not a bf16 value, so its product
    // shows the rounding (bf16: 1 * 1 = 1; fp32: 1.0009765625).
    await tf.setBackend("cpu");
    await tryEnableNativeKernels("cpu");
    const x = tf.fill([4, 8], 1 + 2 ** -10);
    const w = tf.fill([8, 3], 1);
    const bf16 = (await tf.matMul(x, w).data())[0];
    assert.equal(bf16, 8);
    selectMatmulCompute("fp32", addon);
    const fp32 = (await tf.matMul(x, w).data())[0];
    assert.equal(fp32, 8 * (1 + 2 ** -10));
    tf.dispose([x, w]);
  } finally {
    selectMatmulCompute("fp32", addon);
    disableNativeKernels("cpu");
  }
});

test("a product that disagrees with float64 is not used: fp32 is kept and the reason says why", { skip: skipBf16 }, () => {
  // A stand-in addon whose bf16 path is wrong (what an ill-built library on a new CPU family would do).
  let mode: "fp32" | "bf16" = "fp32";
  const wrong: BlasAddon = {
    ...addon!,
    setCompute: (m) => ((mode = m), true),
    compute: () => mode,
    computeLibrary: () => "oneDNN (broken stand-in)",
    gemm: (...args: Parameters<BlasAddon["gemm"]>) => {
      addon!.gemm(...args);
      if (mode === "bf16") args[12][args[13]] += 0.5;
    },
  };
  const report = selectMatmulCompute("bf16", wrong);
  assert.equal(report.compute, "fp32");
  assert.equal(mode, "fp32");
  assert.match(report.reason, /disagreed with a float64 reference/);
});

test("bf16 without the native addon falls back to fp32 and says what is missing", () => {
  const report = selectMatmulCompute("bf16", null);
  assert.equal(report.compute, "fp32");
  assert.match(report.reason, /needs the native kernels/);
});
