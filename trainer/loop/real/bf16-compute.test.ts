/**
 * policy.compute "bf16" through the production loop: the guess-number preset's SFT warm-start (deterministic: same
 * seed, same demonstrations, same order) lands within 2% of fp32's loss at its first and last step, and the run's
 * products were in fact multiplied in bf16 (the addon says so, and the result is not bit-identical to fp32).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { findEnvironment } from "../../../lib/environments";
import { selectBackend } from "../../backend/select";
import { loadBlasAddon } from "../../backend/native/addon";
import { selectMatmulCompute } from "../../backend/native/matmul-compute";
import { trainLocally } from "./local-run";

const { addon } = loadBlasAddon();
const bf16Built = Boolean(addon?.computeLibrary && !addon.computeLibrary().startsWith("none"));

/** Relative tolerance on the warm-start loss: bf16 keeps 8 significant bits per operand, accumulation is fp32. */
const LOSS_TOLERANCE = 0.02;

test(
  "bf16 compute: the guess-number warm-start's loss stays within 2% of fp32's, and bf16 was used",
  { skip: bf16Built ? false : "native addon without oneDNN (apt-get install libdnnl-dev; node native/build.mjs)", timeout: 300_000 },
  async (t) => {
    await selectBackend({ ROLLOUT_LAB_BACKEND: "wasm" });
    const preset = findEnvironment("guess-number")!.preset;
    const base = { ...preset, environment: "guess-number", seed: 3, grpo: { ...preset.grpo, steps: 1, sftWarmupSteps: 12 } };
    const sftLosses = async (compute: "fp32" | "bf16") => {
      const run = await trainLocally({ ...base, policy: { ...preset.policy, compute } });
      // "bf16-sgemm": bf16 operands on sgemm, where oneDNN's bf16 failed its float64 check on this CPU.
      assert.equal(addon!.compute!().split("-")[0], compute, `the run multiplied in ${compute}`);
      const m = run.sink.steps.get(0)!.metrics as Record<string, number>;
      return [m["sft/loss_first"], m["sft/loss_last"]];
    };
    try {
      const fp32 = await sftLosses("fp32");
      const bf16 = await sftLosses("bf16");
      t.diagnostic(`SFT loss first/last: fp32 ${fp32.join(" / ")}, bf16 ${bf16.join(" / ")}`);
      assert.notDeepEqual(bf16, fp32, "bf16 products round their operands: some loss must differ in its last bits");
      fp32.forEach((want, i) => {
        const rel = Math.abs(bf16[i] - want) / Math.abs(want);
        assert.ok(rel <= LOSS_TOLERANCE, `SFT loss ${i ? "last" : "first"}: bf16 ${bf16[i]} vs fp32 ${want} (${(rel * 100).toFixed(2)}%)`);
      });
      assert.ok(bf16[1] < bf16[0], "the warm-start still lowers the loss in bf16");
    } finally {
      selectMatmulCompute("fp32", addon);
    }
  },
);
