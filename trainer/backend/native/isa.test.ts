/**
 * Each instruction-set path of the own kernels (native/blas/src/isa.h) against a float64 reference and against the
 * baseline path, on every path this CPU runs; the others are reported as not run. Also: ROLLOUT_LAB_ISA selects the
 * path it names at load.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { ADDON_PATH, loadBlasAddon, type BlasAddon, type IsaPath } from "./addon";
import { roundToBf16 } from "./matmul-compute";

const { addon } = loadBlasAddon();
const hasIsa = Boolean(addon?.setIsa);
const PATHS: IsaPath[] = ["baseline", "avx2", "avx512"];
const ORDER = (p: IsaPath) => PATHS.indexOf(p);
const widest = hasIsa ? addon!.isaSupported!() : "baseline";
const skipAll = hasIsa ? false : "native addon not built with ISA dispatch (node native/build.mjs)";

function values(n: number, seed: number, lo = -1, hi = 1): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + (hi - lo) * (s / 2 ** 32);
  });
}

/** max |got - want| / (|want| + floor) */
function relError(got: ArrayLike<number>, want: ArrayLike<number>, floor = 1e-3): number {
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]) / (Math.abs(want[i]) + floor));
  return worst;
}

interface KernelRun {
  name: string;
  /** The kernel's outputs on fixed inputs. */
  run(a: BlasAddon): Float32Array[];
  /** The same outputs in float64, or null where only path agreement is checked. */
  reference: (() => number[][]) | null;
  tolerance: number;
  /** relError's floor for outputs that can sit near zero (default 1e-3). */
  floor?: number;
}

const R = 7,
  D = 131,
  N = 5,
  V = 301,
  n = 1037;
const x = values(R * D, 1),
  w = values(D, 2, 0.5, 1.5);
const g = values(n, 3, -6, 6),
  u = values(n, 4);
const logits = values(N * V, 5, -8, 8);
const target = Int32Array.from({ length: N }, (_, i) => (i * 97) % V);
const p = values(n, 6),
  m = values(n, 7, -0.01, 0.01),
  v = values(n, 8, 0, 1e-4),
  grad = values(n, 9, -0.1, 0.1);
const hp = { lr: 1e-3, b1: 0.9, b2: 0.999, eps: 1e-8, wd: 0.01, bc1: 0.1, bc2: 0.002, clip: 0.5 };
const bfIn = values(n, 10, -1000, 1000);
const nBig = 300_001;
const bigP = values(nBig, 11),
  bigM = values(nBig, 12, -0.01, 0.01),
  bigV = values(nBig, 13, 0, 1e-4),
  bigG = values(nBig, 14, -0.1, 0.1);

/** AdamW's step in float64: new p, m, v. */
function adamwReference(p: Float32Array, m: Float32Array, v: Float32Array, grad: Float32Array): number[][] {
  const out: number[][] = [[], [], []];
  for (let i = 0; i < p.length; i++) {
    const gi = grad[i] * hp.clip;
    const mi = hp.b1 * m[i] + (1 - hp.b1) * gi;
    const vi = hp.b2 * v[i] + (1 - hp.b2) * gi * gi;
    out[0].push(p[i] - hp.lr * (mi / hp.bc1 / (Math.sqrt(vi / hp.bc2) + hp.eps) + hp.wd * p[i]));
    out[1].push(mi);
    out[2].push(vi);
  }
  return out;
}
const SK_K = 300,
  SK_N = 37;
const skX = values(8 * SK_K, 14),
  skW = values(SK_K * SK_N, 15),
  skY = values(8 * SK_N, 16);

const KERNELS: KernelRun[] = [
  {
    name: "rmsnorm",
    run: (a) => {
      const y = new Float32Array(R * D);
      a.rmsnormFwd(R, D, 1e-6, x, 0, w, 0, y, 0);
      return [y];
    },
    reference: () => {
      const y: number[] = [];
      for (let r = 0; r < R; r++) {
        let ss = 0;
        for (let j = 0; j < D; j++) ss += x[r * D + j] ** 2;
        const inv = 1 / Math.sqrt(ss / D + 1e-6);
        for (let j = 0; j < D; j++) y.push(x[r * D + j] * inv * w[j]);
      }
      return [y];
    },
    tolerance: 1e-5,
  },
  {
    name: "swiglu",
    run: (a) => {
      const y = new Float32Array(n);
      a.swigluFwd(n, g, 0, u, 0, y, 0);
      return [y];
    },
    reference: () => [Array.from(g, (gi, i) => (gi / (1 + Math.exp(-gi))) * u[i])],
    tolerance: 1e-5,
  },
  {
    name: "token log-prob and entropy",
    run: (a) => {
      const out = new Float32Array(2 * N);
      assert.equal(a.logprobFwd(N, V, logits, 0, target, 0, out, 0), true);
      return [out];
    },
    reference: () => {
      const lp: number[] = [],
        ent: number[] = [];
      for (let r = 0; r < N; r++) {
        const row = Array.from(logits.subarray(r * V, (r + 1) * V));
        const max = Math.max(...row);
        const z = row.reduce((s, l) => s + Math.exp(l - max), 0);
        const logp = row.map((l) => l - max - Math.log(z));
        lp.push(logp[target[r]]);
        ent.push(-logp.reduce((s, l) => s + Math.exp(l) * l, 0));
      }
      return [[...lp, ...ent]];
    },
    tolerance: 1e-5,
  },
  {
    name: "AdamW",
    run: (a) => {
      const [p2, m2, v2] = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
      a.adamw(n, hp.lr, hp.b1, hp.b2, hp.eps, hp.wd, hp.bc1, hp.bc2, hp.clip, p, 0, m, 0, v, 0, grad, 0, p2, 0, m2, 0, v2, 0);
      return [p2, m2, v2];
    },
    reference: () => adamwReference(p, m, v, grad),
    tolerance: 1e-5,
  },
  {
    // past one 4,096-value block and the two-thread threshold, odd length: the copy is rounded block by block
    name: "AdamW in place with the weights' bf16 copy",
    run: (a) => {
      const [p2, m2, v2] = [bigP.slice(), bigM.slice(), bigV.slice()];
      const packed = new Int32Array(Math.ceil(nBig / 2)).fill(-1);
      assert.ok(a.adamwInPlaceBf16, "the addon has adamwInPlaceBf16");
      a.adamwInPlaceBf16(nBig, hp.lr, hp.b1, hp.b2, hp.eps, hp.wd, hp.bc1, hp.bc2, hp.clip, p2, 0, m2, 0, v2, 0, bigG, 0, packed, 0);
      const copy = new Float32Array(nBig);
      a.bf16Decode(nBig, packed, 0, copy, 0);
      for (let i = 0; i < nBig; i++) assert.equal(copy[i], roundToBf16(p2[i]), `copy of weight ${i}: the new weight rounded`);
      return [p2, m2, v2];
    },
    reference: () => adamwReference(bigP, bigM, bigV, bigG),
    tolerance: 1e-5,
  },
  {
    name: "sum of squares",
    run: (a) => [Float32Array.of(a.sumSquares(n, g, 0))],
    reference: () => [[g.reduce((s, gi) => s + gi * gi, 0)]],
    tolerance: 1e-6,
  },
  {
    name: "bf16 encode (round to nearest even)",
    run: (a) => {
      const packed = new Int32Array(Math.ceil(n / 2));
      a.bf16Encode(n, bfIn, 0, packed, 0);
      const back = new Float32Array(n);
      a.bf16Decode(n, packed, 0, back, 0);
      return [back];
    },
    reference: () => [Array.from(bfIn, roundToBf16)],
    tolerance: 0,
  },
  {
    // every row count the few-row kernel specialises; K past its 256-row block and N, K off multiples of 8
    name: "few-row products (x·W and x·Wᵀ, beta 0 and 1)",
    run: (a) => {
      const outs: Float32Array[] = [];
      for (let M = 1; M <= 8; M++) {
        for (const transW of [0, 1]) {
          const y0 = new Float32Array(M * SK_N).fill(NaN),
            y1 = skY.slice(0, M * SK_N);
          assert.equal(a.skinnyGemm!(M, SK_K, SK_N, transW, 0, 0, 1, skX, 0, skW, 0, y0, 0), true);
          assert.equal(a.skinnyGemm!(M, SK_K, SK_N, transW, 0, 1, 1, skX, 0, skW, 0, y1, 0), true);
          outs.push(y0, y1);
        }
      }
      return outs;
    },
    reference: () => {
      const outs: number[][] = [];
      for (let M = 1; M <= 8; M++) {
        for (const transW of [0, 1]) {
          const xw: number[] = [];
          for (let r = 0; r < M; r++)
            for (let c = 0; c < SK_N; c++) {
              let sum = 0;
              for (let k = 0; k < SK_K; k++) sum += skX[r * SK_K + k] * (transW ? skW[c * SK_K + k] : skW[k * SK_N + c]);
              xw.push(sum);
            }
          outs.push(
            xw,
            xw.map((v, i) => v + skY[i]),
          );
        }
      }
      return outs;
    },
    // sums of 300 products of values in [-1, 1]: errors measured against |want| + 1, as fp32 rounds the partial sums
    // (a few 1e-6 here); a lost or doubled term would be off by ~1
    tolerance: 3e-5,
    floor: 1,
  },
  {
    name: "attention forward",
    run: (a) => {
      const [B, T, H, KV, hd] = [2, 9, 4, 2, 16];
      const q = values(B * T * H * hd, 11),
        k = values(B * T * KV * hd, 12),
        vv = values(B * T * KV * hd, 13);
      const out = new Float32Array(B * T * H * hd),
        probs = new Float32Array(B * H * T * T);
      a.attnFwd(B, T, T, H, KV, hd, 0, 0.25, q, 0, k, 0, vv, 0, null, 0, out, 0, probs, 0);
      return [out, probs];
    },
    reference: null,
    tolerance: 1e-5,
  },
];

function runOn(path: IsaPath, kernel: KernelRun): Float32Array[] {
  assert.equal(addon!.setIsa!(path), true, `setIsa(${path})`);
  assert.equal(addon!.isa!(), path);
  return kernel.run(addon!);
}

for (const path of PATHS) {
  const notHere = hasIsa && ORDER(path) > ORDER(widest) ? `this CPU runs up to ${widest}: the ${path} path is not run here` : false;
  test(`own kernels on the ${path} path agree with float64 and with the baseline path`, { skip: skipAll || notHere }, () => {
    const before = addon!.isa!();
    try {
      for (const kernel of KERNELS) {
        const got = runOn(path, kernel);
        const base = runOn("baseline", kernel);
        got.forEach((out, i) => {
          const agree = relError(out, base[i], kernel.floor);
          assert.ok(agree <= Math.max(kernel.tolerance, 1e-6), `${kernel.name} output ${i}: ${path} vs baseline ${agree}`);
        });
        if (kernel.reference) {
          kernel.reference().forEach((want, i) => {
            const err = relError(got[i], want, kernel.floor);
            assert.ok(err <= Math.max(kernel.tolerance, 1e-7), `${kernel.name} output ${i}: ${path} vs float64 ${err}`);
          });
        }
      }
    } finally {
      addon!.setIsa!(before);
    }
  });
}

test("ROLLOUT_LAB_ISA selects the path it names at load; one the CPU lacks falls back to the widest it has", { skip: skipAll }, () => {
  const isaAtLoad = (value: string) => {
    const r = spawnSync(process.execPath, ["-e", `process.stdout.write(require(${JSON.stringify(ADDON_PATH)}).isa())`], {
      env: { ...process.env, ROLLOUT_LAB_ISA: value },
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  for (const path of PATHS.filter((p) => ORDER(p) <= ORDER(widest))) assert.equal(isaAtLoad(path), path);
  assert.equal(isaAtLoad("sse9"), widest);
  assert.equal(isaAtLoad(""), widest);
});

test("an unknown path name is refused with the names that exist", { skip: skipAll }, () => {
  assert.throws(() => addon!.setIsa!("avx1024" as IsaPath), /baseline.*avx2.*avx512/);
});

test("the measured peak: every unit the CPU has gives a figure, one it lacks or an unknown name gives null", { skip: skipAll }, () => {
  const has = {
    "avx2 fp32": ORDER(widest) >= ORDER("avx2"),
    "avx512 fp32": ORDER(widest) >= ORDER("avx512"),
  };
  for (const [unit, present] of Object.entries(has)) {
    const gflops = addon!.peakGflops!(unit, 1, 1_000_000);
    if (present) assert.ok(gflops !== null && Number.isFinite(gflops) && gflops > 0, `${unit}: ${gflops}`);
    else assert.equal(gflops, null, unit);
  }
  // bf16 dot products exist only with avx512_bf16 (/proc/cpuinfo's flag): the figure follows the CPU, not the path.
  const bf16 = addon!.peakGflops!("avx512_bf16", 1, 1_000_000);
  const cpuHasBf16 = /^flags\s*:.*\bavx512_bf16\b/m.test(readFileSync("/proc/cpuinfo", "utf8"));
  assert.equal(bf16 !== null, cpuHasBf16 && has["avx512 fp32"]);
  assert.equal(addon!.peakGflops!("amx bf16", 1, 1_000_000), null);
  assert.equal(addon!.peakGflops!("avx2 fp32", 0, 1_000_000), null, "zero threads");
  assert.throws(() => addon!.peakGflops!(1 as unknown as string, 1, 1), /peakGflops\(unit: string/);
});
