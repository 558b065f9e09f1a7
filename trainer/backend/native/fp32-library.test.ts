/**
 * The fp32 library (fp32-library.ts, native/blas/src/gemm.c): which products oneDNN takes when it multiplies fp32,
 * that they agree with float64 and with OpenBLAS, what falls back to OpenBLAS, the rule that picks the library per CPU
 * and OpenBLAS build, and ROLLOUT_LAB_FP32_GEMM.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { loadBlasAddon } from "./addon";
import { openBlasCore, preferredFp32Library, selectFp32Library } from "./fp32-library";

const { addon, reason } = loadBlasAddon();
const skip = addon?.setFp32Library ? false : `native addon without the fp32 library switch (${reason})`;
const oneDnn = !skip && addon!.setFp32Library!("onednn");
const skipOneDnn =
  skip ||
  (oneDnn ? false : `oneDNN not in this addon build (${addon!.computeLibrary?.()}): apt-get install libdnnl-dev, node native/build.mjs`);
const before = addon?.fp32Library?.() ?? "openblas";
afterEach(() => void addon?.setFp32Library?.(before));

function values(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return 2 * (s / 2 ** 32) - 1;
  });
}

interface Product {
  batch: number;
  ta: boolean;
  tb: boolean;
  M: number;
  N: number;
  K: number;
  /** element distance between batch items of a / b (0: one matrix for every item) */
  strideA: number;
  strideB: number;
}

/** out and oneDNN's share of the calls, and the worst error against float64 relative to the sum of |terms|. */
function run(p: Product) {
  const a = values((p.strideA || p.M * p.K) * (p.strideA ? p.batch : 1), 5);
  const b = values((p.strideB || p.K * p.N) * (p.strideB ? p.batch : 1), 6);
  const out = new Float32Array(p.batch * p.M * p.N);
  addon!.gemmStats!(true);
  addon!.gemm(p.batch, +p.ta, +p.tb, p.M, p.N, p.K, a, 0, p.strideA, b, 0, p.strideB, out, 0);
  const stats = JSON.parse(addon!.gemmStats!(true)) as { fp32: { calls: number; onednnCalls: number } };
  let worst = 0;
  for (let i = 0; i < p.batch; i++)
    for (let m = 0; m < p.M; m += 3)
      for (let n = 0; n < p.N; n += 5) {
        let sum = 0;
        let scale = 0;
        for (let k = 0; k < p.K; k++) {
          const av = a[i * p.strideA + (p.ta ? k * p.M + m : m * p.K + k)];
          const bv = b[i * p.strideB + (p.tb ? n * p.K + k : k * p.N + n)];
          sum += av * bv;
          scale += Math.abs(av * bv);
        }
        worst = Math.max(worst, Math.abs(out[(i * p.M + m) * p.N + n] - sum) / scale);
      }
  return { out, onOneDnn: stats.fp32.onednnCalls, worst };
}

const large: Product[] = [
  { batch: 1, ta: false, tb: false, M: 200, N: 210, K: 220, strideA: 0, strideB: 0 },
  { batch: 1, ta: false, tb: true, M: 128, N: 300, K: 256, strideA: 0, strideB: 0 },
  { batch: 2, ta: true, tb: false, M: 160, N: 170, K: 180, strideA: 160 * 180, strideB: 180 * 170 },
  { batch: 3, ta: true, tb: true, M: 150, N: 170, K: 180, strideA: 150 * 180, strideB: 0 },
];

test("under oneDNN, large fp32 products run on it and agree with float64 and with OpenBLAS", { skip: skipOneDnn }, () => {
  for (const p of large) {
    addon!.setFp32Library!("onednn");
    const dnn = run(p);
    addon!.setFp32Library!("openblas");
    const blas = run(p);
    const label = JSON.stringify(p);
    assert.equal(dnn.onOneDnn, 1, `oneDNN ran ${label}`);
    assert.equal(blas.onOneDnn, 0, `OpenBLAS ran ${label}`);
    // fp32 sums of ~200 terms: a few ulp (2^-24) each of the sum of |terms|
    assert.ok(dnn.worst < 1e-5, `oneDNN vs float64 ${dnn.worst} on ${label}`);
    assert.ok(blas.worst < 1e-5, `OpenBLAS vs float64 ${blas.worst} on ${label}`);
    let far = 0;
    dnn.out.forEach((v, i) => (far = Math.max(far, Math.abs(v - blas.out[i]) / (Math.abs(blas.out[i]) + 1))));
    assert.ok(far < 1e-5, `oneDNN vs OpenBLAS ${far} on ${label}`);
  }
});

test("small products, few-row products and non-packed strides stay on OpenBLAS under oneDNN, and stay right", { skip: skipOneDnn }, () => {
  addon!.setFp32Library!("onednn");
  const stay: Product[] = [
    { batch: 8, ta: false, tb: true, M: 64, N: 64, K: 32, strideA: 64 * 32, strideB: 64 * 32 }, // attention-sized
    { batch: 1, ta: false, tb: true, M: 4, N: 2000, K: 896, strideA: 0, strideB: 0 }, // decoding's head, 4 rows
    { batch: 2, ta: false, tb: false, M: 200, N: 210, K: 220, strideA: 200 * 220 + 17, strideB: 220 * 210 },
  ];
  for (const p of stay) {
    const r = run(p);
    assert.equal(r.onOneDnn, 0, JSON.stringify(p));
    assert.ok(r.worst < 1e-5, `${r.worst} on ${JSON.stringify(p)}`);
  }
});

test("an unknown library name is refused with the names that exist", { skip }, () => {
  assert.throws(() => addon!.setFp32Library!("mkl" as "onednn"), /"openblas" or "onednn"/);
});

test("the rule: oneDNN only where the CPU has AVX-512 and OpenBLAS's kernels do not", () => {
  const config = (core: string) => `OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY ${core} MAX_THREADS=64`;
  assert.equal(openBlasCore(config("Haswell")), "Haswell");
  assert.equal(preferredFp32Library("avx512", config("Haswell")).library, "onednn"); // Zen 5 under OPENBLAS_CORETYPE=Haswell
  assert.equal(preferredFp32Library("avx512", config("Zen")).library, "onednn");
  assert.equal(preferredFp32Library("avx512", config("SkylakeX")).library, "openblas"); // a Xeon: OpenBLAS has AVX-512
  assert.equal(preferredFp32Library("avx512", config("Cooperlake")).library, "openblas");
  assert.equal(preferredFp32Library("avx2", config("Zen")).library, "openblas"); // Zen 3: nothing wider to use
  assert.equal(preferredFp32Library(undefined, config("Haswell")).library, "openblas"); // an addon that predates ISA paths
});

test("ROLLOUT_LAB_FP32_GEMM chooses the library; an unknown value is named in the report and the rule applies", { skip }, () => {
  const rule = preferredFp32Library(addon!.isaSupported?.(), addon!.config()).library;
  const blas = selectFp32Library(addon!, "openblas");
  assert.deepEqual([blas.library, addon!.fp32Library!()], ["openblas", "openblas"]);
  assert.match(blas.reason, /ROLLOUT_LAB_FP32_GEMM=openblas/);
  const typo = selectFp32Library(addon!, "onednnn");
  assert.match(typo.reason, /ROLLOUT_LAB_FP32_GEMM=onednnn ignored \(use auto, openblas, onednn\)/);
  if (oneDnn) {
    assert.equal(typo.library, rule);
    const dnn = selectFp32Library(addon!, "onednn");
    assert.deepEqual([dnn.library, addon!.fp32Library!()], ["onednn", "onednn"]);
    assert.match(dnn.reason, /checked against float64/);
  } else {
    assert.equal(selectFp32Library(addon!, "onednn").library, "openblas", "without oneDNN the request falls back");
  }
});
