/**
 * The real pieces behind the loop's seams: the run's environment (trainer/envs registry), the TF.js decoder policy
 * (trainer/policy) sampling each turn, groups played by play-group.ts (batched sampling across a group's episodes,
 * token ids recorded as sampled, every simulator / judge call recorded), the GRPO update (trainer/update
 * GrpoUpdater) and policy checkpoints. Built once per claimed run.
 *
 * The update trains on the sampled ids (last `maxPositions` tokens); old log-probs are recomputed by the updater.
 * Optional stages: the SFT warm-start (sft-warm-start.ts) and KL in the reward (kl-in-reward.ts).
 */
import os from "node:os";
import path from "node:path";
import { readdirSync, rmSync, statSync } from "node:fs";
import type { RunConfig } from "../../../lib/run-config";
import { estimateStepMemory, stepMemoryInputOf, stepMemoryLimitBytes, stepMemoryProblem } from "../../../lib/step-memory";
import { selectBackendOnce, type BackendReport } from "../../backend/select";
import { placeRun } from "../../backend/placement";
import { selectMatmulCompute } from "../../backend/native/matmul-compute";
import { useHeapMarkingFor } from "../../backend/heap-marking";
import { getEnvironment } from "../../envs/registry";
import type { Task } from "../../envs/types";
import { POLICY_LOSS_METRIC_KEYS } from "../../grpo/index";
import { LlmClient } from "../../llm/client";
import { runLlmConfig } from "../../llm/run-llm-config";
import { AdamW } from "../../policy/optimizer";
import { countParameters } from "../../policy/config";
import { Rng } from "../../policy/rng";
import { GrpoUpdater, type ScoredTrajectory, type TokenUpdateStats } from "../../update/grpo-update";
import { roundTokenValue, type PolicyTokenUpdate } from "../../../lib/policy-tokens";
import type { AdvantagesUsed, LoopDeps } from "../types";
import { loadPolicy, policyModelConfig, policySourceFolder } from "./load-policy";
import { createGroupPlayer, type PolicySample } from "./play-group";
import { multiTurnTokenAdvantages } from "./turn-credit";
import {
  checkpointDirName,
  loadCheckpoint as loadSafetensorsCheckpoint,
  saveCheckpoint as saveSafetensorsCheckpoint,
} from "../../checkpoint/checkpoint";
import { createKlInRewardScorer } from "./kl-in-reward";
import { createSftWarmStart, referenceDirOf } from "./sft-warm-start";
import { bySegment } from "./segments";

export type { PolicySample } from "./play-group";

export interface RealDeps {
  deps: LoopDeps<PolicySample>;
  backend: BackendReport;
  dispose(): void;
}

export async function createRealDeps(config: RunConfig, checkpointDir: string): Promise<RealDeps> {
  // The step's memory decides the backend (the wasm heap stops at 4 GiB) before any weight is allocated; the worker
  // checks the same estimate against its budget. A checkpoint folder whose config.json cannot be read fails below.
  const estimateFor = (dims: Awaited<ReturnType<typeof policyModelConfig>>) =>
    estimateStepMemory(stepMemoryInputOf(config, dims, dims.vocabSize));
  const microBatch = Math.min(config.grpo.microBatchSize ?? config.grpo.minibatchSize, config.grpo.minibatchSize);
  const planned = await policyModelConfig(config).then(estimateFor, () => null);
  const backend = await placeRun(await selectBackendOnce(), planned?.bytes.total ?? 0);

  const env = getEnvironment(config.environment, config.environmentOptions);
  let tasks: Task[];
  if (config.dataset.path) {
    if (!env.loadTasks) throw new Error(`Environment "${env.name}" has no dataset importer; omit dataset.path to use its built-in tasks.`);
    tasks = await env.loadTasks(config.dataset.path);
  } else {
    tasks = env.builtinTasks();
  }
  const train = tasks.filter((t) => t.split === config.dataset.trainSplit);
  const evalTasks = tasks.filter((t) => t.split === config.dataset.evalSplit);
  // Environments whose tasks carry no train/test split train on everything (and evaluate only with a split).
  const trainTasks = train.length ? train : tasks;

  const { model, chat } = await loadPolicy(config);
  const marking = useHeapMarkingFor(countParameters(model.config), backend.backend);
  const compute = selectMatmulCompute(config.policy.compute);
  // The web app could estimate this only for built-in sizes; a checkpoint folder is checked now that it is loaded.
  const memory = stepMemoryProblem(
    estimateFor(model.config),
    stepMemoryLimitBytes(process.env, os.totalmem()),
    microBatch,
    model.config.maxPositions,
  );
  if (memory) {
    model.dispose();
    throw new Error(memory);
  }
  const optimizer = new AdamW(model.trainableVariables(), {
    lr: config.grpo.learningRate,
    maxGradNorm: 1,
    stateBits: config.policy.optimizerState === "8bit" ? 8 : 32,
  });
  const bf16 = config.policy.frozenWeights === "bf16";
  const reference = config.grpo.klCoef > 0 ? model.frozenCopy({ bf16 }) : undefined;
  const updater = new GrpoUpdater(
    model,
    optimizer,
    {
      loss: {
        clipLow: config.grpo.clipLow,
        clipHigh: config.grpo.clipHigh,
        dualClip: config.grpo.dualClip,
        lossAgg: config.grpo.lossAggregation,
        // Dr. GRPO's seq-mean-token-sum-norm (and TRL's dr_grpo) divide by a constant, never by a micro-batch's
        // padded length (which changes from batch to batch and would reweight steps): the policy's context.
        maxTokens: model.config.maxPositions,
        klCoef: config.grpo.klInReward ? 0 : config.grpo.klCoef,
        klEstimator: config.grpo.klEstimator,
        entropyCoef: config.grpo.entropyCoef,
      },
      miniBatchSize: config.grpo.minibatchSize,
      microBatchSize: config.grpo.microBatchSize,
      ppoEpochs: config.grpo.ppoEpochs,
      temperature: config.rollout.temperature,
      recordTokenStats: true,
    },
    reference,
  );
  const llm = new LlmClient(runLlmConfig(config));
  // A stage with its own environment options (EnvTuning: its reward mode) plays on an environment built with them.
  const stageEnvs = config.curriculum.map((stage) =>
    stage.environmentOptions ? getEnvironment(config.environment, { ...config.environmentOptions, ...stage.environmentOptions }) : env,
  );
  const player = createGroupPlayer({ config, env, stageEnvs, model, chat, llm });

  const deps: LoopDeps<PolicySample> = {
    trainTasks,
    evalTasks,
    adjustScores:
      config.grpo.klInReward && reference
        ? createKlInRewardScorer(model, reference, { coef: config.grpo.klCoef, estimator: config.grpo.klEstimator })
        : undefined,
    warmStart:
      config.grpo.sftWarmupSteps > 0
        ? createSftWarmStart({ config, env, trainTasks, model, optimizer, chat, reference, checkpointDir })
        : undefined,
    runGroup: (req) => player.runGroup(req),
    async update(groups, step, signal) {
      // Outcome GRPO broadcasts each sample's group-relative advantage to its tokens; multi-turn credit (UserRL)
      // gives each policy turn its own share instead.
      const perToken =
        config.grpo.turnCredit === "none"
          ? groups.map((g) => g.samples.map((s, i) => s.lossMask.map((m) => m * g.advantages[i])))
          : multiTurnTokenAdvantages(
              config,
              groups.map((g) => g.samples),
            );
      // Per group, per sample: what the update trains on, one sequence per rendering of the episode (undefined for
      // unscored samples, which it leaves out).
      const trained: (ScoredTrajectory[] | undefined)[][] = groups.map((g, gi) =>
        g.samples.map((s, i) => (g.scored[i] ? scoredSegments(s, perToken[gi][i]) : undefined)),
      );
      const batch = trained.map((g) => g.flatMap((t) => t ?? []));
      const flat = batch.flat();
      const reused = flat.filter((t) => t.oldLogProbs).length;
      const report = await updater.update(batch, new Rng(config.seed * 7919 + step), signal);
      const metrics: Record<string, number> = {};
      for (const [k, v] of Object.entries(report.metrics)) metrics[POLICY_LOSS_METRIC_KEYS[k] ?? (k === "grad_norm" ? "grad/norm" : k)] = v;
      if (report.skippedSteps) metrics["update/skipped_steps"] = report.skippedSteps;
      if (flat.length) metrics["update/old_logprobs_sampled_frac"] = reused / flat.length;
      metrics["update/zero_adv_rows_skipped"] = report.zeroAdvantageRowsSkipped;
      return {
        metrics,
        advantagesUsed: groups.map((g, gi) =>
          g.samples.map((s, i) => {
            const t = trained[gi][i];
            const tokens = t
              ? tokenUpdateOf(
                  s,
                  perToken[gi][i],
                  t.map((seg) => report.tokenStats?.get(seg)),
                )
              : undefined;
            return { ...advantagesUsedBy(s, perToken[gi][i]), ...(tokens && { tokens }) };
          }),
        ),
      };
    },
    async saveCheckpoint(completedSteps, state) {
      // safetensors weights + optimizer moments + trainer_state.json, COMPLETE marker last (trainer/checkpoint).
      // Sampling RNGs are seeded from (seed, step), so the step number is the whole RNG state.
      const dir = path.join(checkpointDir, checkpointDirName(completedSteps));
      const trainerState = { step: completedSteps, dataCursor: state.dataCursor, rngState: completedSteps, seed: config.seed };
      const source = policySourceFolder(config);
      await saveSafetensorsCheckpoint(dir, { model, optimizer, state: trainerState, tokenizerFolder: chat.folder, source });
      const sizeBytes = readdirSync(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
      return { location: dir, sizeBytes };
    },
    async loadCheckpoint(location) {
      // After a warm-start the KL reference is the warm-started policy, which no checkpoint-* folder holds. Loaded
      // first: if it is missing or corrupt this throws before the policy is touched, so the loop's fallback (an
      // older checkpoint, else a fresh start that redoes the warm-start) never runs on half-loaded weights.
      if (reference && config.grpo.sftWarmupSteps > 0) await loadSafetensorsCheckpoint(referenceDirOf(checkpointDir), reference);
      await loadSafetensorsCheckpoint(location, model, optimizer);
    },
    async deleteCheckpoint(location) {
      rmSync(location, { recursive: true, force: true });
    },
  };
  // The run page shows the backend's reason: say when 8-bit moments or bf16 weights were asked for but could not be
  // had, what compute the products run in, and where V8 marks its heap.
  const fallbacks = [
    config.policy.optimizerState === "8bit" && optimizer.stateBits !== 8
      ? "AdamW's moments stay fp32: 8-bit needs the native kernels."
      : "",
    bf16 && (config.policy.lora || reference) && !(model.hasBf16Weights || reference?.hasBf16Weights)
      ? "Frozen weights stay fp32: bf16 needs the native kernels."
      : "",
    config.policy.compute === "bf16" ? `Compute: ${compute.reason}.` : "",
    marking,
  ].filter(Boolean);
  return {
    deps,
    backend: fallbacks.length ? { ...backend, reason: `${backend.reason} ${fallbacks.join(" ")}` } : backend,
    dispose() {
      optimizer.dispose();
      reference?.dispose();
      model.dispose();
    },
  };
}

/** Per policy turn, the advantage its tokens were trained with, and the mean over all policy tokens. */
function advantagesUsedBy(sample: PolicySample, tokenAdvantages: number[]): AdvantagesUsed {
  const turns: number[] = [];
  let sum = 0;
  let count = 0;
  sample.lossMask.forEach((m, t) => {
    if (m <= 0) return;
    const a = tokenAdvantages[t] ?? 0;
    sum += a;
    count++;
    const turn = sample.tokenTurnIds[t];
    if (turn >= 0 && turns[turn] === undefined) turns[turn] = a;
  });
  return { trajectory: count ? sum / count : 0, turns: Array.from(turns, (a) => a ?? 0) };
}

/**
 * A sample as the sequences the update trains on: one per rendering of its episode (PolicySample.segmentStarts),
 * each with its tokens' advantages and the sampler's log-probs.
 */
function scoredSegments(sample: PolicySample, advantages: number[]): ScoredTrajectory[] {
  const old = sample.sampledLogProbs;
  return bySegment(sample.tokens, sample.segmentStarts).map((tokens, k) => {
    const start = sample.segmentStarts[k] ?? 0;
    const cut = (values: number[]) => values.slice(start, start + tokens.length);
    // The sampler's log-probs are the old ones: the weights are those that sampled (no update in between), so the
    // update skips a forward pass over the whole batch (sampled-logprobs.test.ts).
    return { tokens, lossMask: cut(sample.lossMask), advantages: cut(advantages), ...(old && { oldLogProbs: cut(old) }) };
  });
}

/**
 * The update's per-token values for the policy view, over all of a sample's segments: kept on sampled tokens only
 * (context carries no gradient); a segment the update left out (all-zero advantages) has none.
 */
function tokenUpdateOf(sample: PolicySample, advantages: number[], stats: (TokenUpdateStats | undefined)[]): PolicyTokenUpdate {
  const lengths = bySegment(sample.tokens, sample.segmentStarts).map((t) => t.length);
  const joined = (pick: (s: TokenUpdateStats) => number[] | null): (number | null)[] | null => {
    if (!stats.some((s) => s && pick(s))) return null;
    return stats.flatMap((s, k) => (s && pick(s)) ?? new Array<number | null>(lengths[k]).fill(null));
  };
  const onSampled = (values: (number | null)[] | null) =>
    values && values.map((v, t) => (sample.lossMask[t] > 0 && v !== null ? roundTokenValue(v) : null));
  const clipped = joined((s) => s.clipCode);
  return {
    advantages: advantages.map((a, t) => (sample.lossMask[t] > 0 ? roundTokenValue(a) : 0)),
    ratio: onSampled(joined((s) => s.ratio)),
    clipped: clipped && clipped.map((c, t) => (sample.lossMask[t] > 0 ? (c ?? 0) : 0)),
    kl: onSampled(joined((s) => s.kl)),
  };
}
