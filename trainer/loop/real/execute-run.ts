/**
 * The worker's run executor with the real pieces: TF.js policy, environments, GRPO update and safetensors
 * checkpoints under `<dataDir>/checkpoints/<run id>`. Shared by trainer/main.ts and the exact-resume test.
 */
import path from "node:path";
import { trainRun } from "../train-run";
import { setRunBackend } from "../../worker/lease";
import type { RunExecutor } from "../../worker/worker";
import { configureDataRoots, dataRoots } from "../../data-roots";
import { removePartialCheckpoints } from "../../checkpoint/checkpoint";
import { createRealDeps } from "./real-deps";
import { confineRunPaths } from "./run-paths";
import { executeEvaluation } from "../../eval/execute-eval";
import { engineSiteFromEnv, executeEngineRun } from "../../engines/engine-executor";
import { selectMatmulCompute } from "../../backend/native/matmul-compute";

export function createRealExecutor(dataDir: string): RunExecutor {
  // Every file a run reads lies under these folders (the data folder's datasets/models/checkpoints and
  // ROLLOUT_LAB_DATA_ROOTS); see trainer/data-roots.ts.
  const roots = dataRoots(dataDir);
  configureDataRoots(roots);
  return async (ctx) => {
    // An outside engine (TRL, verl, SkyRL) trains on its own machine's model and GPUs: this worker launches and
    // supervises its process (trainer/engines/engine-executor.ts), and its paths are the engine's, not ours.
    if (ctx.config.execution.engine !== "builtin") return executeEngineRun(ctx, { dataDir, site: engineSiteFromEnv() });
    const config = await confineRunPaths(ctx.config, roots);
    // An evaluation trains nothing: no checkpoints of its own, the policy as its config names it.
    if (config.eval) {
      // The worker's addon is shared by its runs: an evaluation multiplies as its own config says, not as the last run did.
      selectMatmulCompute(config.policy.compute);
      return executeEvaluation(ctx, config, roots);
    }
    const checkpointDir = path.resolve(dataDir, "checkpoints", ctx.run.id);
    const removed = await removePartialCheckpoints(checkpointDir);
    if (removed.length) await ctx.sink.event("info", `Removed ${removed.length} partial checkpoint folder(s) left by a crashed worker.`);
    const real = await createRealDeps(config, checkpointDir);
    try {
      const b = real.backend;
      const kernels = b.nativeKernels.enabled ? " + native OpenBLAS kernels" : ` (stock kernels: ${b.nativeKernels.reason})`;
      await setRunBackend(ctx.db, ctx.run.id, ctx.workerId, `${b.backend}${kernels}; ${b.reason}`);
      return await trainRun(config, real.deps, ctx.sink, ctx.control);
    } finally {
      real.dispose();
    }
  };
}
