/**
 * Chooses the TF.js backend the trainer runs on and reports why, so a run page can show what it was trained with.
 *
 * Order: `ROLLOUT_LAB_BACKEND` forces one of tensorflow | wasm | cpu; otherwise tfjs-node-gpu (libtensorflow) if it
 * loads, else wasm (SIMD, XNNPACK), else the pure-JS cpu backend. `tf.setBackend()` resolves `false` instead of
 * throwing when a backend fails to start, so every choice is confirmed with `tf.getBackend()`.
 */
import { firstLine, withoutFilePaths } from "../../lib/error-text";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import * as tf from "@tensorflow/tfjs";

export type BackendName = "tensorflow" | "wasm" | "cpu";
export const BACKEND_NAMES: readonly BackendName[] = ["tensorflow", "wasm", "cpu"];

export interface BackendReport {
  backend: BackendName;
  /** One sentence: why this backend (forced by env, first that loaded, fallbacks tried). */
  reason: string;
  threads: number;
  simd: boolean;
  /** Faster BLAS-backed kernels registered by trainer/backend/native (owned by the kernel work). */
  nativeKernels: { enabled: boolean; reason: string };
  tfjsVersion: string;
}

export class BackendError extends Error {
  readonly code = "BACKEND_UNAVAILABLE";
  constructor(message: string) {
    super(message);
    this.name = "BackendError";
  }
}

const require = createRequire(import.meta.url);

/** Folder holding the .wasm binaries that ship with the npm package (nothing is fetched at run time). */
export function localWasmDir(): string {
  const entry = require.resolve("@tensorflow/tfjs-backend-wasm");
  // entry is .../tfjs-backend-wasm/dist/tf-backend-wasm.node.js (or similar) inside dist/
  let dir = path.dirname(entry);
  while (path.basename(dir) !== "dist" && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir + path.sep;
}

async function tryTensorflow(): Promise<string | null> {
  try {
    // Optional dependency: its install downloads libtensorflow, which fails without network access to its binaries, so it is usually absent.
    await import(/* webpackIgnore: true */ "@tensorflow/tfjs-node-gpu" as string);
  } catch (e) {
    // The usual case (libtensorflow cannot be fetched offline, so npm drops the optional package). The run page shows
    // this text: no import stack with the server's file paths.
    if ((e as { code?: string }).code === "ERR_MODULE_NOT_FOUND") return "@tensorflow/tfjs-node-gpu is not installed";
    return `@tensorflow/tfjs-node-gpu could not be loaded (${withoutFilePaths(firstLine(e))})`;
  }
  const ok = await tf.setBackend("tensorflow");
  if (!ok || tf.getBackend() !== "tensorflow") return "tfjs-node-gpu loaded but the tensorflow backend did not start";
  return null;
}

async function tryWasm(): Promise<string | null> {
  try {
    const wasm = await import("@tensorflow/tfjs-backend-wasm");
    wasm.setWasmPaths(localWasmDir());
  } catch (e) {
    return `@tensorflow/tfjs-backend-wasm could not be loaded (${withoutFilePaths(firstLine(e))})`;
  }
  const ok = await tf.setBackend("wasm");
  if (!ok || tf.getBackend() !== "wasm") return "the wasm backend did not start";
  return null;
}

async function tryCpu(): Promise<string | null> {
  const ok = await tf.setBackend("cpu");
  return ok && tf.getBackend() === "cpu" ? null : "the cpu backend did not start";
}

const starters: Record<BackendName, () => Promise<string | null>> = {
  tensorflow: tryTensorflow,
  wasm: tryWasm,
  cpu: tryCpu,
};

async function enableNativeKernels(backend: string): Promise<{ enabled: boolean; reason: string }> {
  const file = path.join(path.dirname(new URL(import.meta.url).pathname), "native", "index.ts");
  try {
    const mod = (await import(pathToFileURL(file).href)) as {
      tryEnableNativeKernels?: (b: string) => Promise<{ enabled: boolean; reason: string }>;
    };
    if (typeof mod.tryEnableNativeKernels !== "function") {
      return { enabled: false, reason: "trainer/backend/native exports no tryEnableNativeKernels" };
    }
    return await mod.tryEnableNativeKernels(backend);
  } catch (e) {
    return { enabled: false, reason: `native kernels unavailable (${withoutFilePaths(firstLine(e))})` };
  }
}

function describeThreads(backend: BackendName): { threads: number; simd: boolean } {
  if (backend !== "wasm") return { threads: 1, simd: false };
  const simd = tf.env().getBool("WASM_HAS_SIMD_SUPPORT");
  const multi = tf.env().getBool("WASM_HAS_MULTITHREAD_SUPPORT");
  return { threads: multi ? 2 : 1, simd };
}

/**
 * Starts a backend and returns the report. `env` defaults to process.env; pass `{}` in tests to get the default
 * order. Throws BackendError when a forced backend cannot start (a forced choice must never silently fall back).
 */
export async function selectBackend(
  env: Record<string, string | undefined> = process.env,
  opts: { native?: boolean } = {},
): Promise<BackendReport> {
  const forced = env.ROLLOUT_LAB_BACKEND?.trim();
  let backend: BackendName;
  let reason: string;
  if (forced) {
    if (!(BACKEND_NAMES as readonly string[]).includes(forced)) {
      throw new BackendError(`ROLLOUT_LAB_BACKEND="${forced}" is not a backend. Use one of: ${BACKEND_NAMES.join(", ")}, or unset it.`);
    }
    backend = forced as BackendName;
    const failure = await starters[backend]();
    if (failure) {
      const hint =
        backend === "tensorflow"
          ? " tfjs-node-gpu needs libtensorflow, which cannot be installed offline; unset ROLLOUT_LAB_BACKEND to use wasm."
          : "";
      throw new BackendError(`ROLLOUT_LAB_BACKEND=${backend} was requested but ${failure}.${hint}`);
    }
    reason = `forced by ROLLOUT_LAB_BACKEND=${backend}`;
  } else {
    const skipped: string[] = [];
    let chosen: BackendName | null = null;
    for (const name of BACKEND_NAMES) {
      const failure = await starters[name]();
      if (!failure) {
        chosen = name;
        break;
      }
      skipped.push(`${name}: ${failure}`);
    }
    if (!chosen) throw new BackendError(`No TF.js backend could start. ${skipped.join("; ")}`);
    backend = chosen;
    reason = skipped.length ? `default order; skipped ${skipped.join("; ")}` : "default order; first choice loaded";
  }
  await tf.ready();
  const nativeKernels = opts.native === false ? { enabled: false, reason: "disabled by caller" } : await enableNativeKernels(backend);
  return { backend, reason, ...describeThreads(backend), nativeKernels, tfjsVersion: tf.version.tfjs };
}

let selectedOnce: Promise<BackendReport> | null = null;

/**
 * The process's backend, chosen on first use and shared by everything the worker runs: training, and the
 * pre-flight checks beside it. A fresh worker that answered a check before its first run used to compute it on
 * TF.js's default, the pure-JS cpu backend (~200× slower: minutes for a 2,500-token opening, so the launch form
 * gave up waiting).
 */
export function selectBackendOnce(): Promise<BackendReport> {
  selectedOnce ??= selectBackend();
  return selectedOnce;
}
