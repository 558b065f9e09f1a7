import { test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { loadBlasAddon, type BlasAddon, type NativeCompute } from "./addon";
import { roundToBf16, selectMatmulCompute, worstRelativeError, PRODUCT_TOLERANCE } from "./matmul-compute";
import { disableNativeKernels, tryEnableNativeKernels } from "./index";

const { addon } = loadBlasAddon();
const bf16Built = Boolean(addon?.setCompute && addon.computeLibrary && !addon.computeLibrary().startsWith("none"));
const skipNative = addon ? false : "native addon not built (apt-get install libopenblas-dev; node native/build.mjs)";
const skipBf16 = bf16Built ? false : "addon built without oneDNN (apt-get install libdnnl-dev; node native/build.mjs)";
/** Whether oneDNN's bf16 passes the float64 check on this CPU (it did not on one without AVX-512): decided once. */
function oneDnnRoute(): boolean {
  const report = selectMatmulCompute("bf16", addon);
  selectMatmulCompute("fp32", addon);
  return !/sgemm on rounded operands/.test(report.reason);
}

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
    assert.match(report.reason, /checked against float64/);
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
  let mode: NativeCompute = "fp32";
  const wrong: BlasAddon = {
    ...addon!,
    setCompute: (m) => ((mode = m), true),
    compute: () => mode,
    computeLibrary: () => "oneDNN (broken stand-in)",
    gemm: (...args: Parameters<BlasAddon["gemm"]>) => {
      addon!.gemm(...args);
      if (mode !== "fp32") args[12][args[13]] += 0.5;
    },
  };
  const report = selectMatmulCompute("bf16", wrong);
  assert.equal(report.compute, "fp32");
  assert.equal(mode, "fp32");
  assert.match(report.reason, /disagreed with a float64 reference \(relative error .*\), and sgemm on rounded operands too/);
});

test(
  "where oneDNN's bf16 disagrees with float64, bf16 runs every product as sgemm on rounded operands, and says so",
  { skip: skipBf16 },
  () => {
    // oneDNN wrong, the addon's own sgemm route right: what a CPU without AVX-512 gave (oneDNN 2.6 off by 7.6e-4).
    const wrongOneDnn: BlasAddon = {
      ...addon!,
      setCompute: (m) => addon!.setCompute!(m),
      computeLibrary: () => addon!.computeLibrary!(),
      gemm: (...args: Parameters<BlasAddon["gemm"]>) => {
        addon!.gemm(...args);
        if (addon!.compute!() === "bf16") args[12][args[13]] += 0.5;
      },
    };
    try {
      const report = selectMatmulCompute("bf16", wrongOneDnn);
      assert.equal(report.compute, "bf16");
      assert.equal(addon!.compute!(), "bf16-sgemm");
      assert.match(report.reason, /sgemm on rounded operands, no faster than fp32 \(oneDNN .* disagreed with a float64 reference/);
      // Every product, however wide, now runs on sgemm, exact to float64 of the rounded operands.
      assert.ok(worstRelativeError(addon!, "bf16") < PRODUCT_TOLERANCE);
      assert.equal(addon!.bf16Thin!(512, 512, 512), true);
    } finally {
      selectMatmulCompute("fp32", addon);
    }
  },
);

test('an older build that throws on "bf16-sgemm" is left in fp32, not in the bf16 that failed its check', { skip: skipBf16 }, () => {
  let mode: NativeCompute = "fp32";
  const older: BlasAddon = {
    ...addon!,
    setCompute: (m) => {
      if (m === "bf16-sgemm") throw new TypeError('setCompute expects "fp32" or "bf16"');
      mode = m;
      return true;
    },
    compute: () => mode,
    computeLibrary: () => "oneDNN (broken stand-in)",
    gemm: (...args: Parameters<BlasAddon["gemm"]>) => {
      addon!.gemm(...args);
      if (mode !== "fp32") args[12][args[13]] += 0.5;
    },
  };
  const report = selectMatmulCompute("bf16", older);
  assert.equal(report.compute, "fp32");
  assert.equal(mode, "fp32");
  assert.match(report.reason, /disagreed with a float64 reference .*; fp32 kept/);
});

test("bf16 without the native addon falls back to fp32 and says what is missing", () => {
  const report = selectMatmulCompute("bf16", null);
  assert.equal(report.compute, "fp32");
  assert.match(report.reason, /needs the native kernels/);
});

test(
  "under bf16, thin products (a k/v projection's [R,896]x[896,128]) run as sgemm on rounded operands and the rest on oneDNN (or sgemm where oneDNN failed its check), all exact to float64 of the rounded operands",
  { skip: skipBf16 },
  () => {
    const oneDnn = oneDnnRoute();
    assert.equal(selectMatmulCompute("bf16", addon).compute, "bf16");
    try {
      const product = (M: number, N: number, K: number) => {
        const a = Float32Array.from({ length: M * K }, (_, i) => Math.sin(i * 0.37));
        const b = Float32Array.from({ length: K * N }, (_, i) => Math.cos(i * 0.11));
        const out = new Float32Array(M * N);
        addon!.gemmStats!(true);
        addon!.gemm(1, 0, 0, M, N, K, a, 0, 0, b, 0, 0, out, 0);
        const stats = JSON.parse(addon!.gemmStats!(true)) as {
          bf16ThinViaSgemm: { calls: number };
          onednn: { shapes: { type: string }[] };
        };
        let worst = 0;
        for (let m = 0; m < M; m += 7) {
          for (let n = 0; n < N; n += 5) {
            let sum = 0;
            let scale = 0;
            for (let k = 0; k < K; k++) {
              const p = roundToBf16(a[m * K + k]) * roundToBf16(b[k * N + n]);
              sum += p;
              scale += Math.abs(p);
            }
            worst = Math.max(worst, Math.abs(out[m * N + n] - sum) / scale);
          }
        }
        return { viaSgemm: stats.bf16ThinViaSgemm.calls, onOneDnn: stats.onednn.shapes.filter((g) => g.type === "bf16").length, worst };
      };
      const thin = product(64, 128, 896);
      assert.deepEqual([thin.viaSgemm, thin.onOneDnn], [1, 0], "a side of 128 runs as sgemm");
      assert.ok(thin.worst < PRODUCT_TOLERANCE, `thin: ${thin.worst}`);
      const wide = product(256, 256, 384);
      if (oneDnn) assert.deepEqual([wide.viaSgemm, wide.onOneDnn], [0, 1], "every side >= 256 runs on oneDNN");
      else assert.deepEqual([wide.viaSgemm, wide.onOneDnn], [1, 0], "oneDNN failed its check on this CPU: sgemm for every product");
      assert.ok(wide.worst < PRODUCT_TOLERANCE, `wide: ${wide.worst}`);
    } finally {
      selectMatmulCompute("fp32", addon);
    }
  },
);

test(
  "under bf16 a large product is split by columns over the cores: every transpose, an uneven last part and the columns at each part's edge are exact to float64, and it counts as one product",
  { skip: skipBf16 },
  () => {
    if (!oneDnnRoute()) return; // oneDNN failed its check on this CPU: every product is sgemm, nothing is split
    assert.equal(selectMatmulCompute("bf16", addon).compute, "bf16");
    const threadsBefore = addon!.threads();
    addon!.setThreads(2);
    try {
      // No side under 256 (a thin product is not oneDNN's), M*N*K = 2^28.1 (over the split threshold); N = 1000
      // splits into 512 + 488 columns.
      const M = 272;
      const N = 1000;
      const K = 1056;
      for (const [ta, tb] of [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ]) {
        const a = Float32Array.from({ length: M * K }, (_, i) => Math.sin(i * 0.37 + ta));
        const b = Float32Array.from({ length: K * N }, (_, i) => Math.cos(i * 0.11 + tb));
        const out = new Float32Array(M * N).fill(Number.NaN);
        addon!.gemmStats!(true);
        addon!.gemm(1, ta, tb, M, N, K, a, 0, 0, b, 0, 0, out, 0);
        const stats = JSON.parse(addon!.gemmStats!(true)) as {
          onednn: { shapes: { type: string; N: number; calls: number; columnParts: number }[] };
        };
        assert.deepEqual(
          stats.onednn.shapes.map((s) => [s.type, s.N, s.calls, s.columnParts]),
          [["bf16", N, 1, 2]],
          `ta ${ta} tb ${tb}: one product of the full width, in 2 parts`,
        );
        assert.equal(out.filter((v) => Number.isNaN(v)).length, 0, "every output written");
        const at = (m: number, k: number) => (ta ? a[k * M + m] : a[m * K + k]);
        const bt = (k: number, n: number) => (tb ? b[n * K + k] : b[k * N + n]);
        let worst = 0;
        const columns = [0, 1, 63, 64, 511, 512, 513, 700, 998, 999];
        for (let m = 0; m < M; m += 17) {
          for (const n of columns) {
            let sum = 0;
            let scale = 0;
            for (let k = 0; k < K; k++) {
              const p = roundToBf16(at(m, k)) * roundToBf16(bt(k, n));
              sum += p;
              scale += Math.abs(p);
            }
            worst = Math.max(worst, Math.abs(out[m * N + n] - sum) / scale);
          }
        }
        assert.ok(worst < PRODUCT_TOLERANCE, `ta ${ta} tb ${tb}: ${worst}`);
      }
    } finally {
      addon!.setThreads(threadsBefore);
      selectMatmulCompute("fp32", addon);
    }
  },
);
