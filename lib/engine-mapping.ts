/**
 * A run's settings as TRL's, verl's or SkyRL's own config keys. Every key written here is checked against the
 * engine's source (tests/fixtures/engines/<engine>/facts.json, extracted by scripts/engine-facts.py) by
 * lib/engine-mapping.test.ts, so a renamed key fails a test instead of a job on a GPU machine.
 *
 * Three outcomes per setting: it maps (same meaning), it maps approximately (`approx`, with why — e.g. TRL's
 * completion budget counts the whole episode where Rollout Lab's is per turn), or it is refused (`refused`, naming
 * the field and what to set instead). A refused value is one the engine would silently do differently.
 */
import type { RunConfig } from "./run-config";
import type { OutsideEngine } from "./engine-config";

export interface EngineMapping {
  engine: OutsideEngine;
  /** The engine's config keys (dotted for verl and SkyRL's CLI overrides; GRPOConfig keywords for TRL) → values. */
  settings: Record<string, string | number | boolean | null>;
  /** TRL only: LoRA through peft's LoraConfig, given to GRPOTrainer(peft_config=...). */
  lora: { r: number; lora_alpha: number } | null;
  /** The model the engine loads (a Hugging Face id or a path on the GPU machine). */
  model: string;
  /** Rollout Lab settings that map approximately, with the reason. */
  approx: { field: string; note: string }[];
  refused: { path: (string | number)[]; message: string }[];
}

const BUILTIN_SIZES = new Set(["tiny", "small", "base"]);

/** Refusals every outside engine shares: what only Rollout Lab's own trainer does. */
function commonRefusals(c: RunConfig, engine: OutsideEngine, refuse: (path: string, message: string) => void): void {
  const name = { trl: "TRL", verl: "verl", skyrl: "SkyRL" }[engine];
  if (BUILTIN_SIZES.has(c.policy.model))
    refuse(
      "policy.model",
      `"${c.policy.model}" is a built-in size of Rollout Lab's trainer; ${name} loads a Hugging Face model: set policy.model to its id or path on the GPU machine, e.g. "Qwen/Qwen3-1.7B".`,
    );
  if (c.policy.tokenizer !== "byte")
    refuse("policy.tokenizer", `${name} uses the model's own tokenizer; remove policy.tokenizer (leave it "byte").`);
  for (const field of ["endpoint", "scripted", "checkpoint"] as const)
    if (c.policy[field] !== undefined)
      refuse(`policy.${field}`, `evaluation runs play inside Rollout Lab; set execution.engine to "builtin" or remove policy.${field}.`);
  if (c.eval) refuse("eval", `evaluation runs play inside Rollout Lab; set execution.engine to "builtin" or remove eval.`);
  if (c.grpo.turnCredit !== "none")
    refuse("grpo.turnCredit", `${name} scores a trajectory as a whole here; set grpo.turnCredit to "none".`);
  if (c.grpo.trajectoryScore !== "sum")
    refuse("grpo.trajectoryScore", `${name} trains on the episode's reward; set grpo.trajectoryScore to "sum".`);
  if (c.grpo.dynamicSampling)
    refuse(
      "grpo.dynamicSampling",
      `${name}'s trainer has no DAPO group filtering in the entry Rollout Lab starts; set grpo.dynamicSampling to false.`,
    );
  if (c.grpo.overlongPenalty)
    refuse("grpo.overlongPenalty", `${name} gets the environment's reward unchanged; remove grpo.overlongPenalty.`);
  if (c.grpo.sftWarmupSteps > 0) refuse("grpo.sftWarmupSteps", `no SFT warm-start before ${name}'s GRPO; set grpo.sftWarmupSteps to 0.`);
  if (c.policy.optimizerState !== "fp32")
    refuse("policy.optimizerState", `${name}'s optimizer is configured by the engine; set policy.optimizerState to "fp32".`);
  if (c.policy.frozenWeights !== "fp32")
    refuse("policy.frozenWeights", `${name} keeps its reference model as it chooses; set policy.frozenWeights to "fp32".`);
  if (engine !== "trl" && c.policy.lora && !Number.isInteger(c.policy.lora.alpha))
    refuse(
      "policy.lora.alpha",
      `${name}'s LoRA alpha is a whole number; set policy.lora.alpha to e.g. ${Math.max(1, Math.round(c.policy.lora.alpha))}.`,
    );
  if (c.curriculum.length > 0) refuse("curriculum", `${name} trains on one dataset; remove curriculum or use the built-in trainer.`);
}

/** The per-turn token limit times the turns: an episode's most policy tokens, for engines that budget the episode. */
const episodeTokens = (c: RunConfig) => c.rollout.maxNewTokens * c.rollout.maxTurns;

function trl(c: RunConfig, m: EngineMapping, refuse: (path: string, message: string) => void): void {
  const g = c.grpo;
  const lossType = { "token-mean": "dapo", "seq-mean-token-mean": "grpo", "seq-mean-token-sum-norm": "dr_grpo" }[
    g.lossAggregation as string
  ];
  if (!lossType)
    refuse(
      "grpo.lossAggregation",
      `TRL has no "${g.lossAggregation}" loss; use token-mean, seq-mean-token-mean or seq-mean-token-sum-norm.`,
    );
  if (g.advantageEstimator !== "grpo" && g.advantageEstimator !== "drgrpo")
    refuse(
      "grpo.advantageEstimator",
      `TRL normalises by the group (grpo) or not at all (drgrpo); "${g.advantageEstimator}" has no TRL setting.`,
    );
  if (g.klEstimator !== "k3") refuse("grpo.klEstimator", `TRL's KL term is k3 only; set grpo.klEstimator to "k3".`);
  if (g.klInReward) refuse("grpo.klInReward", "TRL applies the KL in the loss only; set grpo.klInReward to false.");
  if (g.dualClip !== null) refuse("grpo.dualClip", "TRL has no dual-clip; set grpo.dualClip to null.");
  // GRPOConfig refuses a generation batch that is not a whole number of per-device batches (grpo_config.py)
  const perDevice = g.microBatchSize ?? g.minibatchSize;
  if ((g.groupsPerStep * g.groupSize) % perDevice !== 0)
    refuse(
      g.microBatchSize ? "grpo.microBatchSize" : "grpo.minibatchSize",
      `TRL needs the ${g.groupsPerStep * g.groupSize} trajectories of a step (groupsPerStep × groupSize) to split into batches of ${perDevice}; choose a divisor of ${g.groupsPerStep * g.groupSize}.`,
    );
  Object.assign(m.settings, {
    num_generations: g.groupSize,
    learning_rate: g.learningRate,
    beta: g.klCoef,
    epsilon: g.clipLow,
    epsilon_high: g.clipHigh,
    entropy_coef: g.entropyCoef,
    loss_type: lossType ?? null,
    scale_rewards: g.advantageEstimator === "drgrpo" ? "none" : "group",
    num_iterations: g.ppoEpochs,
    max_steps: g.steps,
    max_completion_length: episodeTokens(c),
    max_tool_calling_iterations: c.rollout.maxTurns,
    temperature: c.rollout.temperature,
    top_p: c.rollout.topP,
    generation_batch_size: g.groupsPerStep * g.groupSize,
    per_device_train_batch_size: g.microBatchSize ?? g.minibatchSize,
    gradient_accumulation_steps: Math.max(1, Math.round(g.minibatchSize / (g.microBatchSize ?? g.minibatchSize))),
    gradient_checkpointing: c.policy.recomputeActivations,
    chat_template_kwargs: null,
    logging_steps: 1,
    log_completions: false,
  });
  m.lora = c.policy.lora ? { r: c.policy.lora.rank, lora_alpha: c.policy.lora.alpha } : null;
  m.approx.push(
    {
      field: "rollout.maxNewTokens × rollout.maxTurns",
      note: "max_completion_length is TRL's budget for the whole episode (every turn and tool output), not per turn",
    },
    { field: "rollout.maxTurns", note: "also max_tool_calling_iterations; the environment ends the episode at maxTurns" },
    {
      field: "grpo.groupsPerStep, grpo.minibatchSize, grpo.microBatchSize",
      note: "generation_batch_size, per_device_train_batch_size and gradient_accumulation_steps per process: with several GPUs TRL multiplies the batch by the processes",
    },
  );
}

function verl(c: RunConfig, m: EngineMapping, refuse: (path: string, message: string) => void): void {
  const g = c.grpo;
  if (g.advantageEstimator !== "grpo" && g.advantageEstimator !== "drgrpo")
    refuse(
      "grpo.advantageEstimator",
      `verl's GRPO normalises by the group std or not (drgrpo); "${g.advantageEstimator}" has no verl setting.`,
    );
  if (g.dualClip === null)
    refuse("grpo.dualClip", "verl always applies dual-clip (clip_ratio_c); set grpo.dualClip to a value > 1, e.g. 3.");
  const kl = g.klInReward
    ? { "algorithm.use_kl_in_reward": true, "algorithm.kl_ctrl.kl_coef": g.klCoef, "algorithm.kl_penalty": g.klEstimator }
    : {
        "actor_rollout_ref.actor.use_kl_loss": g.klCoef > 0,
        "actor_rollout_ref.actor.kl_loss_coef": g.klCoef,
        "actor_rollout_ref.actor.kl_loss_type": g.klEstimator,
      };
  Object.assign(m.settings, {
    "algorithm.adv_estimator": "grpo",
    "algorithm.norm_adv_by_std_in_grpo": g.advantageEstimator !== "drgrpo",
    ...kl,
    "actor_rollout_ref.model.path": c.policy.model,
    "actor_rollout_ref.model.enable_gradient_checkpointing": c.policy.recomputeActivations,
    "actor_rollout_ref.model.lora_rank": c.policy.lora?.rank ?? 0,
    "actor_rollout_ref.model.lora_alpha": c.policy.lora?.alpha ?? 16,
    "actor_rollout_ref.rollout.n": g.groupSize,
    "actor_rollout_ref.actor.optim.lr": g.learningRate,
    "actor_rollout_ref.actor.clip_ratio_low": g.clipLow,
    "actor_rollout_ref.actor.clip_ratio_high": g.clipHigh,
    "actor_rollout_ref.actor.clip_ratio_c": g.dualClip,
    "actor_rollout_ref.actor.entropy_coeff": g.entropyCoef,
    "actor_rollout_ref.actor.loss_agg_mode": g.lossAggregation,
    "actor_rollout_ref.actor.ppo_epochs": g.ppoEpochs,
    "actor_rollout_ref.actor.ppo_mini_batch_size": Math.max(1, Math.round(g.minibatchSize / g.groupSize)),
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": g.microBatchSize ?? g.minibatchSize,
    "actor_rollout_ref.rollout.temperature": c.rollout.temperature,
    "actor_rollout_ref.rollout.top_p": c.rollout.topP,
    "actor_rollout_ref.rollout.response_length": episodeTokens(c),
    // mandatory in verl's config (???); SGLang is the rollout verl's multi-turn tool-calling docs use
    "actor_rollout_ref.rollout.name": "sglang",
    "actor_rollout_ref.rollout.multi_turn.enable": true,
    "actor_rollout_ref.rollout.multi_turn.max_assistant_turns": c.rollout.maxTurns,
    "data.train_batch_size": g.groupsPerStep,
    "data.max_response_length": episodeTokens(c),
    "data.return_raw_chat": true,
    "trainer.total_training_steps": g.steps,
  });
  m.approx.push(
    {
      field: "rollout.maxNewTokens × rollout.maxTurns",
      note: "response_length is verl's budget for the whole trajectory, tool and user turns included",
    },
    {
      field: "grpo.minibatchSize",
      note: "ppo_mini_batch_size counts prompts (× rollout.n trajectories): minibatchSize / groupSize, rounded",
    },
  );
}

function skyrl(c: RunConfig, m: EngineMapping, refuse: (path: string, message: string) => void): void {
  const g = c.grpo;
  if (g.advantageEstimator !== "grpo" && g.advantageEstimator !== "drgrpo")
    refuse(
      "grpo.advantageEstimator",
      `SkyRL's GRPO normalises by the group std or not (drgrpo); "${g.advantageEstimator}" has no SkyRL setting.`,
    );
  if (!["k1", "k2", "k3"].includes(g.klEstimator))
    refuse("grpo.klEstimator", `SkyRL's kl_estimator_type is k1, k2 or k3; "${g.klEstimator}" has no SkyRL setting.`);
  const reduction = {
    "token-mean": "token_mean",
    "seq-mean-token-mean": "sequence_mean",
    "seq-mean-token-sum-norm": "seq_mean_token_sum_norm",
  }[g.lossAggregation as string];
  if (!reduction)
    refuse(
      "grpo.lossAggregation",
      `SkyRL has no "${g.lossAggregation}" reduction; use token-mean, seq-mean-token-mean or seq-mean-token-sum-norm.`,
    );
  Object.assign(m.settings, {
    "trainer.algorithm.advantage_estimator": "grpo",
    "trainer.algorithm.grpo_norm_by_std": g.advantageEstimator !== "drgrpo",
    "trainer.algorithm.use_kl_loss": !g.klInReward && g.klCoef > 0,
    "trainer.algorithm.use_kl_in_reward": g.klInReward,
    "trainer.algorithm.kl_loss_coef": g.klCoef,
    "trainer.algorithm.kl_estimator_type": g.klEstimator,
    "trainer.algorithm.eps_clip_low": g.clipLow,
    "trainer.algorithm.eps_clip_high": g.clipHigh,
    "trainer.algorithm.policy_loss_type": g.dualClip === null ? "regular" : "dual_clip",
    "trainer.algorithm.clip_ratio_c": g.dualClip ?? 3,
    "trainer.algorithm.use_entropy_loss": g.entropyCoef > 0,
    "trainer.algorithm.entropy_loss_coef": g.entropyCoef,
    "trainer.algorithm.loss_reduction": reduction ?? null,
    "trainer.policy.model.path": c.policy.model,
    "trainer.policy.model.lora.rank": c.policy.lora?.rank ?? 0,
    "trainer.policy.model.lora.alpha": c.policy.lora?.alpha ?? 16,
    "trainer.policy.optimizer_config.lr": g.learningRate,
    "trainer.gradient_checkpointing": c.policy.recomputeActivations,
    "trainer.update_epochs_per_batch": g.ppoEpochs,
    "trainer.train_batch_size": g.groupsPerStep,
    "trainer.policy_mini_batch_size": Math.max(1, Math.round(g.minibatchSize / g.groupSize)),
    "trainer.max_training_steps": g.steps,
    "generator.n_samples_per_prompt": g.groupSize,
    "generator.max_turns": c.rollout.maxTurns,
    "generator.sampling_params.max_generate_length": c.rollout.maxNewTokens,
    "generator.sampling_params.temperature": c.rollout.temperature,
    "generator.sampling_params.top_p": c.rollout.topP,
    "environment.env_class": "rollout-lab",
  });
  m.approx.push({ field: "grpo.minibatchSize", note: "policy_mini_batch_size counts prompts: minibatchSize / groupSize, rounded" });
}

export function mapRunToEngine(c: RunConfig, engine: OutsideEngine): EngineMapping {
  const m: EngineMapping = { engine, settings: {}, lora: null, model: c.policy.model, approx: [], refused: [] };
  const refuse = (path: string, message: string) => m.refused.push({ path: path.split("."), message });
  commonRefusals(c, engine, refuse);
  ({ trl, verl, skyrl })[engine](c, m, refuse);
  return m;
}
