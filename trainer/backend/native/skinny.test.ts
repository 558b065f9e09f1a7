/**
 * The few-row product kernel (native/blas/src/skinny.h) that decoding runs on: the same numbers whether its columns
 * are shared over threads or not, refused past 8 rows, and what the addon's gemm runs for a one-matrix product of a
 * few rows (sampling's head, x·Eᵀ) — checked against float64. Per instruction-set path: isa.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadBlasAddon } from "./addon";
import { roundToBf16 } from "./matmul-compute";

const { addon, reason } = loadBlasAddon();
const skip = addon?.skinnyGemm ? false : `native addon without the few-row kernel (${reason ?? "rebuild: node native/build.mjs"})`;

function values(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return 2 * (s / 2 ** 32) - 1;
  });
}

function reference(x: Float32Array, w: Float32Array, M: number, K: number, N: number, transW: boolean): Float64Array {
  const y = new Float64Array(M * N);
  for (let r = 0; r < M; r++)
    for (let c = 0; c < N; c++) {
      let sum = 0;
      for (let k = 0; k < K; k++) sum += x[r * K + k] * (transW ? w[c * K + k] : w[k * N + c]);
      y[r * N + c] = sum;
    }
  return y;
}

/** max |got - want| / (|want| + 1): sums of many products round in fp32 near zero too */
function maxRelError(got: Float32Array, want: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]) / (Math.abs(want[i]) + 1));
  return worst;
}

test("a product large enough to share out over two threads gives the same bits as on one", { skip }, () => {
  const [M, K, N] = [8, 1024, 1100]; // 9M multiply-adds: past the kernel's threshold for starting a thread
  const x = values(M * K, 1),
    w = values(K * N, 2);
  for (const transW of [0, 1]) {
    const one = new Float32Array(M * N),
      two = new Float32Array(M * N);
    assert.equal(addon!.skinnyGemm!(M, K, N, transW, 0, 0, 1, x, 0, w, 0, one, 0), true);
    assert.equal(addon!.skinnyGemm!(M, K, N, transW, 0, 0, 2, x, 0, w, 0, two, 0), true);
    assert.deepEqual(two, one, `transW ${transW}`);
    // 1,024 products per sum: fp32's rounding of the partial sums reaches ~1e-5 of |want| + 1
    assert.ok(maxRelError(one, reference(x, w, M, K, N, transW === 1)) < 1e-4);
  }
});

test("more than 8 rows (or none) is refused and nothing is written", { skip }, () => {
  const [K, N] = [16, 8];
  for (const M of [0, 9]) {
    const y = new Float32Array(Math.max(M, 1) * N).fill(7);
    assert.equal(addon!.skinnyGemm!(M, K, N, 0, 0, 0, 1, values(Math.max(M, 1) * K, 3), 0, values(K * N, 4), 0, y, 0), false);
    assert.ok(y.every((v) => v === 7));
  }
});

const gemmSkip = skip || (process.env.ROLLOUT_LAB_FEW_ROW_GEMM === "0" ? "ROLLOUT_LAB_FEW_ROW_GEMM=0 keeps gemm on OpenBLAS" : false);

test("the addon's gemm runs a one-matrix product of a few rows on the kernel: x·W and a tied head's x·Eᵀ", { skip: gemmSkip }, () => {
  const [K, N] = [96, 1003];
  for (const M of [1, 3, 8]) {
    const x = values(M * K, 5 + M);
    for (const tb of [0, 1]) {
      const w = values(K * N, 9 + tb);
      const viaGemm = new Float32Array(M * N),
        direct = new Float32Array(M * N);
      addon!.gemm(1, 0, tb, M, N, K, x, 0, 0, w, 0, 0, viaGemm, 0);
      addon!.skinnyGemm!(M, K, N, tb, 0, 0, addon!.threads(), x, 0, w, 0, direct, 0);
      assert.deepEqual(viaGemm, direct, `M ${M}, tb ${tb}`);
      assert.ok(maxRelError(viaGemm, reference(x, w, M, K, N, tb === 1)) < 1e-5, `M ${M}, tb ${tb} vs float64`);
    }
  }
});

test("setFewRowGemm(false) sends few-row products back to OpenBLAS, which gives the same product", { skip: gemmSkip }, () => {
  const [M, K, N] = [4, 64, 300];
  const x = values(M * K, 21),
    w = values(K * N, 22);
  const kernel = new Float32Array(M * N),
    openblas = new Float32Array(M * N);
  addon!.gemm(1, 0, 0, M, N, K, x, 0, 0, w, 0, 0, kernel, 0);
  assert.equal(addon!.setFewRowGemm!(false), true, "on by default");
  try {
    assert.equal(addon!.setFewRowGemm!(false), false, "returns the setting it replaces");
    addon!.gemm(1, 0, 0, M, N, K, x, 0, 0, w, 0, 0, openblas, 0);
  } finally {
    addon!.setFewRowGemm!(true);
  }
  const want = reference(x, w, M, K, N, false);
  assert.ok(maxRelError(openblas, want) < 1e-5, "OpenBLAS route");
  assert.ok(maxRelError(kernel, want) < 1e-5, "few-row route");
});

test("rounding W in registers (bf16 compute) gives the bits of multiplying a rounded copy, NaN kept", { skip }, () => {
  const [M, K, N] = [5, 300, 37]; // K past the 256-row block, N and K off multiples of 8
  for (const transW of [0, 1]) {
    const x = Float32Array.from(values(M * K, 31), roundToBf16),
      w = values(K * N, 32);
    w[7] = NaN;
    const rounded = Float32Array.from(w, roundToBf16);
    const inRegisters = new Float32Array(M * N),
      fromCopy = new Float32Array(M * N);
    assert.equal(addon!.skinnyGemm!(M, K, N, transW, 1, 0, 1, x, 0, w, 0, inRegisters, 0), true);
    assert.equal(addon!.skinnyGemm!(M, K, N, transW, 0, 0, 1, x, 0, rounded, 0, fromCopy, 0), true);
    assert.deepEqual(inRegisters, fromCopy, `transW ${transW}`);
    assert.ok(inRegisters.some(Number.isNaN) && inRegisters.some(Number.isFinite));
  }
});

test("under bf16 compute a few-row product is the float64 product of the bf16-rounded operands", { skip: gemmSkip }, () => {
  const [M, K, N] = [3, 200, 1001];
  const x = values(M * K, 41);
  for (const tb of [0, 1]) {
    const w = values(K * N, 42 + tb);
    const y = new Float32Array(M * N);
    assert.equal(addon!.setCompute!("bf16-sgemm"), true);
    try {
      addon!.gemm(1, 0, tb, M, N, K, x, 0, 0, w, 0, 0, y, 0);
    } finally {
      addon!.setCompute!("fp32"); // this file's other products are fp32
    }
    const want = reference(Float32Array.from(x, roundToBf16), Float32Array.from(w, roundToBf16), M, K, N, tb === 1);
    assert.ok(maxRelError(y, want) < 1e-5, `tb ${tb}`);
    // and not the fp32 product: the rounding happened
    assert.ok(maxRelError(y, reference(x, w, M, K, N, tb === 1)) > 1e-4, `tb ${tb}: operands were not rounded`);
  }
});
