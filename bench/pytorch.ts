/**
 * Runs bench/pytorch-reference.py (the reference decoder in PyTorch) for bench:trainer, which compares with PyTorch
 * on the same machine. Two things decide whether that comparison is fair to PyTorch:
 * - threads: PyTorch's CPU threading has two layers — its own intra-op threads and OpenBLAS's — and running both at
 *   the core count oversubscribes 2 cores badly, so every split (1 x 1, 1 x cores, cores x 1) is tried and the
 *   fastest is used;
 * - the allocator: under glibc's default malloc, PyTorch's large per-step buffers are returned to the OS and faulted
 *   back in every step (11,600-18,000 minor faults per step measured). Raising glibc's mmap and trim thresholds
 *   keeps them in the heap, as a tuned PyTorch deployment (or jemalloc / tcmalloc) would.
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "pytorch-reference.py");

/** glibc malloc settings for the PyTorch process: no mmap for large blocks, no trimming (4 GiB thresholds). */
export const PYTORCH_ALLOCATOR_ENV = { MALLOC_MMAP_THRESHOLD_: "4294967296", MALLOC_TRIM_THRESHOLD_: "4294967296" } as const;

export interface ThreadSplit {
  torch: number;
  blas: number;
}

export interface PytorchRound {
  torch: string;
  parameters: number;
  stepSeconds: number[];
  stepCpuSeconds: number[];
  sampledTokensPerSecond: Record<string, number>;
}

/** The first python with torch: $ROLLOUT_LAB_PYTHON, python3 on PATH, then Debian's /usr/bin/python3. */
export function findTorchPython(): string | null {
  const candidates = [process.env.ROLLOUT_LAB_PYTHON, "python3", "/usr/bin/python3"].filter(Boolean) as string[];
  return candidates.find((py) => spawnSync(py, ["-c", "import torch"], { stdio: "ignore" }).status === 0) ?? null;
}

export function threadSplits(cores = os.availableParallelism()): ThreadSplit[] {
  const all = [
    { torch: 1, blas: 1 },
    { torch: 1, blas: cores },
    { torch: cores, blas: 1 },
  ];
  return all.filter((s, i) => all.findIndex((t) => t.torch === s.torch && t.blas === s.blas) === i);
}

export const describeSplit = (s: ThreadSplit) => `torch ${s.torch} x OpenBLAS ${s.blas}`;

/** One PyTorch process: a warm-up step, `steps` timed steps, then sampling. Throws with the script's last error line. */
export function runPytorch(python: string, split: ThreadSplit, opts: { steps: number; quick: boolean }): PytorchRound {
  const args = [SCRIPT, "--steps", String(opts.steps), "--threads", String(split.torch), ...(opts.quick ? ["--quick"] : [])];
  const env = { ...process.env, ...PYTORCH_ALLOCATOR_ENV, OPENBLAS_NUM_THREADS: String(split.blas), OMP_NUM_THREADS: String(split.torch) };
  const r = spawnSync(python, args, { encoding: "utf8", env });
  if (r.status !== 0) throw new Error(`bench/pytorch-reference.py failed: ${(r.stderr || "").trim().split("\n").at(-1)}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as PytorchRound;
}
