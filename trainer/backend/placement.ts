/**
 * Which backend one run trains on, from its estimated step memory (lib/step-memory.ts). The wasm backend is the
 * fastest CPU path for small models but keeps every tensor on one heap that stops at 4 GiB: a 100M-parameter
 * model with AdamW failed there with "memory access out of bounds". A run whose step does not fit trains on the
 * cpu backend instead, whose tensors are JavaScript typed arrays bounded only by RAM, with the same native kernels
 * doing the heavy ops on them (native/kernel-memory.ts). tfjs-node-gpu (tensorflow) and a forced cpu backend are
 * never changed. The choice is made per run, so a small run after a large one is back on wasm.
 */
import * as tf from "@tensorflow/tfjs";
import { WASM_STEP_BUDGET_BYTES } from "../../lib/step-memory";
import type { BackendName, BackendReport } from "./select";
import { tryEnableNativeKernels } from "./native/index";

const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;

/** The backend a step of `stepBytes` should run on, given the process's backend, and why. */
export function chooseTrainingBackend(
  stepBytes: number,
  selected: BackendName,
  forced: boolean,
): { backend: BackendName; reason: string | null } {
  if (selected !== "wasm" || forced) return { backend: selected, reason: null };
  if (stepBytes <= WASM_STEP_BUDGET_BYTES) return { backend: "wasm", reason: null };
  return {
    backend: "cpu",
    reason: `a training step needs ~${gib(stepBytes)}, more than the wasm heap gives (${gib(WASM_STEP_BUDGET_BYTES)} of its 4 GiB): this run trains on the cpu backend, tensors in JavaScript memory`,
  };
}

/** Switches TF.js to the run's backend (and its native kernels); returns the report the run page shows. */
export async function placeRun(
  selected: BackendReport,
  stepBytes: number,
  env: Record<string, string | undefined> = process.env,
): Promise<BackendReport> {
  const choice = chooseTrainingBackend(stepBytes, selected.backend, Boolean(env.ROLLOUT_LAB_BACKEND?.trim()));
  if (tf.getBackend() !== choice.backend) {
    if (!(await tf.setBackend(choice.backend))) throw new Error(`the ${choice.backend} backend did not start`);
    await tf.ready();
  }
  if (!choice.reason) return selected;
  const native = await tryEnableNativeKernels("cpu");
  const kernels = native.enabled ? "native kernels on its arrays" : `no native kernels (${native.reason}): slow`;
  return {
    ...selected,
    backend: "cpu",
    reason: `${choice.reason}, ${kernels}`,
    threads: 1,
    simd: false,
    nativeKernels: { enabled: native.enabled, reason: native.reason },
  };
}
