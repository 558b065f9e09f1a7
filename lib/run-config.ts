/**
 * RunConfig: the one schema shared by the launch form, the tRPC/REST API and the trainer. It is stored as JSON on
 * each run and re-parsed by the trainer, so every field has a default and a description (shown as help text in
 * the launch form and in the OpenAPI document). Invalid combinations are rejected with a message saying what to
 * change (see `refineRunConfig`).
 */
import { z } from "zod";
import { ENVIRONMENT_NAMES } from "./environments";
import { BUILTIN_MODEL_DIMS, type BuiltinModelSize } from "./model-sizes";
import {
  checkpointRefSchema,
  evalSchema,
  llmPriceSchema,
  policyEndpointSchema,
  policySamplingSchema,
  refineEvalConfig,
  SCRIPTED_POLICIES,
} from "./eval-config";
import { executionSchema } from "./execution-config";
import { engineIssues } from "./engine-config";

const positiveInt = (max: number) => z.number().int().min(1).max(max);

/**
 * A file or folder on the trainer host. The worker resolves it inside its data folders (<data dir>/datasets, models,
 * checkpoints and ROLLOUT_LAB_DATA_ROOTS) and refuses anything that leads out; `..` is refused here already.
 */
const dataPath = (what: string) =>
  z
    .string()
    .min(1)
    .max(1024)
    .refine((p) => !p.includes("\0"), `${what} contains a NUL character`)
    .refine(
      (p) => !p.split(/[\\/]/).includes(".."),
      `${what} must not contain "..": name a path inside the worker's data folders, e.g. "tau2/retail" for <data dir>/datasets/tau2/retail`,
    );

export const ADVANTAGE_ESTIMATORS = ["grpo", "trl", "drgrpo", "art"] as const;
export const LOSS_AGGREGATIONS = ["token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"] as const;
/** k1 / k2 / k3 (Schulman's estimators; k3 = verl low_var_kl) and verl's straight-through k1+ / k3+ (value of k1 or
 * k3, gradient of k2: unbiased KL gradients). */
export const KL_ESTIMATORS = ["k1", "k2", "k3", "k1+", "k3+"] as const;
export const TURN_CREDIT_METHODS = ["none", "equalized", "r2g", "em"] as const;
export const TRAJECTORY_SCORES = ["sum", "r2g"] as const;
/** Tool-call formats a checkpoint's replies are read in (trainer/policy/chat/tool-call-formats.ts). */
export const TOOL_CALL_PARSERS = ["hermes", "llama3_json", "mistral"] as const;
/** How the policy's context grows when the chat template does not extend it (trainer/rollout/episode-tokens.ts). */
export const POLICY_CONTEXT_MODES = ["append", "rerender"] as const;
export type PolicyContextMode = (typeof POLICY_CONTEXT_MODES)[number];
export const BUILTIN_MODEL_SIZES = Object.keys(BUILTIN_MODEL_DIMS) as BuiltinModelSize[];

/** One LLM endpoint for a simulator or judge role. API keys are never here: only the name of the variable. */
export const llmEndpointSchema = z
  .object({
    baseUrl: z.url().describe("OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1 (vLLM)."),
    model: z.string().min(1).describe("Model name the endpoint serves."),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, "apiKeyEnv must be the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself")
      .optional()
      .describe("Name of the environment variable holding the API key on the trainer host."),
    temperature: z.number().min(0).max(2).default(0.7),
    maxTokens: positiveInt(32768).default(1024),
    timeoutMs: positiveInt(600_000).default(60_000),
    price: llmPriceSchema.optional().describe("What the endpoint charges (USD per 1M tokens), to count cost; omit: recorded at cost 0."),
  })
  .strict();

export const runConfigSchema = z
  .object({
    name: z.string().min(1).max(120).default("untitled run").describe("Display name of the run."),
    tags: z.array(z.string().min(1).max(40)).max(20).default([]).describe("Labels for filtering the runs list."),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(0)
      .describe("Seeds data order, sampling and initialisation."),

    environment: z.string().min(1).default("simulated").describe("Environment name (see the environments table in the README)."),
    environmentOptions: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Options of the chosen environment (validated by the environment itself, e.g. tau2-retail's user strategy)."),
    dataset: z
      .object({
        path: dataPath("dataset.path")
          .optional()
          .describe(
            "Task file or folder on the trainer host, relative to its data folders (<data dir>/datasets by default) or absolute inside them; omit to use the environment's built-in tasks.",
          ),
        trainSplit: z.string().default("train"),
        evalSplit: z.string().default("test").describe("Held-out split used for evaluation."),
        demonstrationsPath: dataPath("dataset.demonstrationsPath")
          .optional()
          .describe(
            'JSONL file on the trainer host for the SFT warm-start (grpo.sftWarmupSteps), one chat per line in the OpenAI format: {"messages": [{"role": "system" | "user" | "assistant" | "tool", "content": "..."}]}. Only assistant turns are trained. Omit to use the environment\'s own gold trajectories (guess-number, sgd with a dataset path, bfcl).',
          ),
      })
      .strict()
      .prefault({}),

    policy: z
      .object({
        model: dataPath("policy.model")
          .default("tiny")
          .describe(
            "Built-in size (tiny, small, base) or a Hugging Face checkpoint folder in the trainer's data folders (<data dir>/models by default).",
          ),
        tokenizer: dataPath("policy.tokenizer")
          .default("byte")
          .describe(
            "\"byte\" or a Hugging Face tokenizer.json in the trainer's data folders (its folder's tokenizer_config.json chat template is used). A checkpoint folder in policy.model brings its own.",
          ),
        chatTemplateKwargs: z
          .record(z.string(), z.unknown())
          .default({})
          .describe(
            'Extra variables for the policy\'s chat template, as apply_chat_template(**kwargs) in transformers: e.g. {"enable_thinking": false} for Qwen3, {"date_string": "26 Jul 2024"} for Llama 3.1.',
          ),
        toolCallParser: z
          .enum(["auto", ...TOOL_CALL_PARSERS, "none"])
          .default("auto")
          .describe(
            'How the policy\'s replies are read for tool calls when its chat template renders tools: "auto" recognises the family from the template (Hermes <tool_call> for Qwen2.5/Qwen3, Llama 3.1/3.2 JSON, Mistral [TOOL_CALLS]); "none" leaves tools to the environment\'s own prompt text.',
          ),
        contextLength: z
          .number()
          .int()
          .min(64)
          .max(32_768)
          .optional()
          .describe(
            "Context of the policy in tokens (default: a built-in size's own, 512 for tiny and small, 1024 for base; a Hugging Face folder's max_position_embeddings, at most 4096). Size it from the environment's prompts: an opening prompt that does not fit is cut, a later turn that does not fit ends the episode.",
          ),
        lora: z
          .object({ rank: positiveInt(256), alpha: z.number().positive() })
          .strict()
          .optional(),
        optimizerState: z
          .enum(["fp32", "8bit"])
          .default("fp32")
          .describe(
            "AdamW's two moments in fp32 (8 bytes per trained parameter) or 8-bit blockwise (2 bytes; needs the native kernels, else fp32).",
          ),
        recomputeActivations: z
          .boolean()
          .default(false)
          .describe(
            "Activation checkpointing: keep each layer's input only and recompute the layer in the backward pass (less memory, one more forward).",
          ),
        compute: z
          .enum(["fp32", "bf16"])
          .default("fp32")
          .describe(
            "What the policy's matrix products multiply in: fp32, or bf16 inputs with fp32 accumulation (PyTorch's CPU autocast; weights, gradients and optimizer state stay fp32). bf16 needs the native kernels built with oneDNN (libdnnl-dev), else fp32 with a note on the run page.",
          ),
        frozenWeights: z
          .enum(["fp32", "bf16"])
          .default("fp32")
          .describe(
            "Storage of the weights that get no gradient — a LoRA run's base, a KL reference (grpo.klCoef > 0) — in fp32 or bfloat16 (half the bytes; needs the native kernels, else fp32).",
          ),
        endpoint: policyEndpointSchema
          .optional()
          .describe(
            "Evaluation runs: an OpenAI-compatible model plays instead of the trained policy (tools as function schemas, tool_calls read back). Needs an eval section.",
          ),
        sampling: policySamplingSchema.prefault({}).describe("Sampling of policy.endpoint's calls."),
        scripted: z
          .enum(SCRIPTED_POLICIES)
          .optional()
          .describe(
            'Evaluation runs: "gold" replays each task\'s gold actions (a built-in script, not a model; offline). Needs an eval section.',
          ),
        checkpoint: checkpointRefSchema
          .optional()
          .describe(
            "Evaluation runs: a training run's checkpoint plays (the trainer's policy, sampled with rollout.*). Needs an eval section.",
          ),
      })
      .strict()
      .prefault({}),

    grpo: z
      .object({
        steps: positiveInt(1_000_000).default(20).describe("Training steps."),
        groupsPerStep: positiveInt(1024).default(4).describe("Tasks sampled per step (Simia's env_groups)."),
        groupSize: positiveInt(256).default(4).describe("Rollouts per task (Simia's group_size); must be ≥ 2 for group advantages."),
        learningRate: z.number().positive().max(1).default(1e-3),
        clipLow: z.number().min(0).max(1).default(0.2).describe("PPO clip ε below 1."),
        clipHigh: z.number().min(0).max(10).default(0.28).describe("PPO clip ε above 1 (DAPO clip-higher)."),
        dualClip: z
          .number()
          .gt(1)
          .nullable()
          .default(3)
          .describe(
            "Dual-clip constant c (> 1) capping the loss of negative-advantage tokens at −A·c (verl clip_ratio_c, on by default at 3); null disables it (TRL).",
          ),
        klEstimator: z.enum(KL_ESTIMATORS).default("k3"),
        klCoef: z.number().min(0).default(0).describe("KL-to-reference coefficient (0 disables the reference model)."),
        klInReward: z
          .boolean()
          .default(false)
          .describe(
            "Apply the KL penalty to the reward instead of the loss (verl use_kl_in_reward): each score becomes reward − klCoef × the sample's summed token KL, before group advantages.",
          ),
        entropyCoef: z.number().min(0).default(0),
        lossAggregation: z.enum(LOSS_AGGREGATIONS).default("token-mean"),
        advantageEstimator: z.enum(ADVANTAGE_ESTIMATORS).default("grpo"),
        turnCredit: z.enum(TURN_CREDIT_METHODS).default("none").describe("Multi-turn credit assignment (UserRL)."),
        trajectoryScore: z.enum(TRAJECTORY_SCORES).default("sum"),
        gamma: z.number().min(0).max(1).default(1),
        dynamicSampling: z.boolean().default(false).describe("Drop groups whose rewards do not vary (DAPO)."),
        dynamicSamplingMaxRounds: z
          .number()
          .int()
          .min(0)
          .max(20)
          .default(3)
          .describe(
            "With dynamicSampling: extra sampling rounds to refill the batch with groups that have reward variance (DAPO's max_num_gen_batches − 1); 0 trains on what is left.",
          ),
        overlongPenalty: z
          .object({
            bufferTokens: positiveInt(1_000_000).describe(
              "Length of the soft zone before the most an episode can generate (DAPO: 4,096 of 20,480).",
            ),
            factor: z.number().min(0).max(10).default(1).describe("Penalty at the maximum length (DAPO: 1)."),
          })
          .strict()
          .optional()
          .describe(
            "DAPO's soft overlong punishment: scores of episodes whose policy tokens reach into the last bufferTokens of rollout.maxNewTokens × maxTurns lose up to factor, linearly, before group advantages (stored rewards stay the environment's).",
          ),
        ppoEpochs: positiveInt(16).default(1),
        minibatchSize: positiveInt(4096).default(16).describe("Trajectories per optimiser step."),
        microBatchSize: positiveInt(4096)
          .optional()
          .describe(
            "Trajectories per forward/backward pass (at most minibatchSize); gradients accumulate over a minibatch (less memory per pass). Default: minibatchSize.",
          ),
        sftWarmupSteps: z
          .number()
          .int()
          .min(0)
          .max(1_000_000)
          .default(0)
          .describe(
            "Supervised warm-start before the first GRPO step of a fresh run: this many optimizer steps of minibatchSize demonstrations (dataset.demonstrationsPath, else the environment's gold trajectories). 0 skips it.",
          ),
      })
      .strict()
      .prefault({}),

    rollout: z
      .object({
        maxTurns: positiveInt(100).default(10),
        maxNewTokens: positiveInt(8192).default(96),
        temperature: z.number().min(0).max(2).default(1),
        topP: z.number().gt(0).max(1).default(1),
        concurrency: positiveInt(1024).default(16).describe("Episodes run at once."),
        prefixCacheMb: z
          .number()
          .int()
          .min(0)
          .max(65536)
          .default(256)
          .describe("MiB of keys and values kept between an episode's turns so a turn runs only its new tokens; 0 = off."),
        policyContext: z
          .enum(POLICY_CONTEXT_MODES)
          .default("append")
          .describe(
            'When the chat template renders the conversation otherwise than the policy sampled it (a tool call\'s JSON spaced differently, Qwen3 dropping earlier reasoning): "append" keeps the sampled ids and appends each observation\'s rendered delta, one sequence per episode (verl / SkyRL; the default: what is trained is what was sampled, at a cost linear in turns); "rerender" re-renders the conversation as a chat server would and trains each rendering as its own sequence. rollout/template_diverged_turns counts such turns either way.',
          ),
      })
      .strict()
      .prefault({}),

    llm: z
      .object({
        userSimulator: llmEndpointSchema.optional().describe("Omit to use the offline simulated user."),
        toolSimulator: llmEndpointSchema.optional().describe("Omit to use the offline tool simulator."),
        judge: llmEndpointSchema.optional().describe("Omit to use the offline judge."),
        concurrency: positiveInt(512).default(16),
        maxRetries: z.number().int().min(0).max(10).default(3),
      })
      .strict()
      .prefault({}),

    judge: z
      .object({
        samples: positiveInt(9).default(1).describe("Judge each episode k times and report agreement."),
        leniency: z.number().min(0).max(1).default(0.5).describe("Offline judge strictness: 0 strict … 1 lenient."),
        rubric: z.string().optional().describe("Replaces the default judge rubric."),
      })
      .strict()
      .prefault({}),

    checkpoint: z
      .object({
        saveFreq: positiveInt(1_000_000).default(5).describe("Save every N steps (and on stop / cancel)."),
        keepLast: positiveInt(100).default(3),
      })
      .strict()
      .prefault({}),

    evaluation: z
      .object({
        testFreq: z.number().int().min(0).max(1_000_000).default(5).describe("Evaluate every N steps (0 disables)."),
        samplesPerTask: positiveInt(16).default(2).describe("k for pass@1 / pass^k."),
        maxTasks: positiveInt(10_000).default(8),
      })
      .strict()
      .prefault({}),

    curriculum: z
      .array(
        z
          .object({
            name: z.string().min(1),
            steps: positiveInt(1_000_000),
            filter: z
              .object({ tags: z.array(z.string()).optional(), split: z.string().optional() })
              .strict()
              .default({}),
            environmentOptions: z
              .record(z.string(), z.unknown())
              .optional()
              .describe(
                'Environment options for this stage, over the run\'s (EnvTuning: rewardMode "format" in stages 1-2, "progress" in 3).',
              ),
          })
          .strict(),
      )
      .default([])
      .describe("Stages trained in order; each selects tasks by tag (EnvTuning: format → base → all)."),

    execution: executionSchema
      .prefault({})
      .describe(
        'Where the run trains: by a trainer worker (launcher "worker", the default) or as a Slurm batch job (launcher "slurm", docs/slurm.md).',
      ),

    eval: evalSchema
      .optional()
      .describe(
        "Makes this an evaluation run: every selected task is played k times by the policy (policy.endpoint, policy.scripted, policy.checkpoint, or policy.model as it is) and nothing is trained; reports pass@1, pass^k and the mean reward per task and overall.",
      ),
  })
  .strict()
  .superRefine(refineRunConfig);

export type RunConfig = z.output<typeof runConfigSchema>;

/** What one worker step can hold: episodes played and trained, and tokens sampled (bounds the rollout's memory). */
export const MAX_EPISODES_PER_STEP = 4096;
export const MAX_SAMPLED_TOKENS_PER_STEP = 16_000_000;
export type RunConfigInput = z.input<typeof runConfigSchema>;

function refineRunConfig(c: RunConfig, ctx: z.RefinementCtx): void {
  if (!ENVIRONMENT_NAMES.includes(c.environment)) {
    ctx.addIssue({
      code: "custom",
      path: ["environment"],
      message: `Unknown environment "${c.environment}"; choose one of: ${ENVIRONMENT_NAMES.join(", ")}.`,
    });
  }
  refineEvalConfig(c, ctx);
  for (const issue of engineIssues(c)) ctx.addIssue({ code: "custom", ...issue });
  if (c.grpo.groupSize < 2 && c.grpo.advantageEstimator !== "drgrpo") {
    ctx.addIssue({
      code: "custom",
      path: ["grpo", "groupSize"],
      message: "groupSize must be at least 2: group-relative advantages compare samples of the same task. Raise groupSize.",
    });
  }
  if (c.grpo.turnCredit !== "none" && c.grpo.advantageEstimator !== "grpo") {
    // UserRL's turn-level credit computes its own group normalisation of turn rewards; combining it with another
    // outcome estimator has no definition in either system, and ignoring one of the two silently misleads.
    ctx.addIssue({
      code: "custom",
      path: ["grpo", "advantageEstimator"],
      message: `grpo.turnCredit "${c.grpo.turnCredit}" computes its own turn-level advantages (UserRL), so grpo.advantageEstimator "${c.grpo.advantageEstimator}" would be ignored. Set advantageEstimator to "grpo", or turnCredit to "none".`,
    });
  }
  const batch = c.grpo.groupsPerStep * c.grpo.groupSize;
  if (batch > MAX_EPISODES_PER_STEP) {
    ctx.addIssue({
      code: "custom",
      path: ["grpo", "groupsPerStep"],
      message: `groupsPerStep × groupSize = ${batch} episodes per step; a worker plays and trains at most ${MAX_EPISODES_PER_STEP}. Lower one of them.`,
    });
  }
  const sampledTokens = batch * c.rollout.maxTurns * c.rollout.maxNewTokens;
  if (sampledTokens > MAX_SAMPLED_TOKENS_PER_STEP) {
    ctx.addIssue({
      code: "custom",
      path: ["rollout", "maxNewTokens"],
      message: `Up to ${sampledTokens.toLocaleString("en-US")} sampled tokens per step (episodes × maxTurns × maxNewTokens); the limit is ${MAX_SAMPLED_TOKENS_PER_STEP.toLocaleString("en-US")}. Lower rollout.maxTurns, rollout.maxNewTokens or the episodes per step.`,
    });
  }
  if (c.grpo.minibatchSize > batch) {
    ctx.addIssue({
      code: "custom",
      path: ["grpo", "minibatchSize"],
      message: `minibatchSize (${c.grpo.minibatchSize}) exceeds the trajectories per step (groupsPerStep × groupSize = ${batch}); lower it to ${batch} or less.`,
    });
  }
  if (c.grpo.clipHigh < c.grpo.clipLow * 0.5) {
    ctx.addIssue({
      code: "custom",
      path: ["grpo", "clipHigh"],
      message: "clipHigh is far below clipLow; DAPO's clip-higher uses clipHigh ≥ clipLow.",
    });
  }
  if (c.grpo.klInReward && c.grpo.klCoef === 0) {
    ctx.addIssue({ code: "custom", path: ["grpo", "klCoef"], message: "klInReward needs klCoef > 0; set klCoef or turn klInReward off." });
  }
  if (c.grpo.klInReward && c.grpo.turnCredit !== "none") {
    ctx.addIssue({
      code: "custom",
      path: ["grpo", "klInReward"],
      message:
        "klInReward penalises the outcome score, which multi-turn credit does not use; turn klInReward off (the KL loss term still applies) or set turnCredit to none.",
    });
  }
  if (c.dataset.demonstrationsPath !== undefined && c.grpo.sftWarmupSteps === 0) {
    ctx.addIssue({
      code: "custom",
      path: ["dataset", "demonstrationsPath"],
      message: "demonstrationsPath is only read by the SFT warm-start; set grpo.sftWarmupSteps > 0 or remove it.",
    });
  }
  if (c.grpo.turnCredit === "none" && c.grpo.gamma !== 1) {
    ctx.addIssue({
      code: "custom",
      path: ["grpo", "gamma"],
      message: "gamma only applies with multi-turn credit; choose a turnCredit method or leave gamma at 1.",
    });
  }
  const curriculumSteps = c.curriculum.reduce((s, st) => s + st.steps, 0);
  if (c.curriculum.length > 0 && curriculumSteps !== c.grpo.steps) {
    ctx.addIssue({
      code: "custom",
      path: ["curriculum"],
      message: `curriculum stages add up to ${curriculumSteps} steps but grpo.steps is ${c.grpo.steps}; make them equal.`,
    });
  }
}

/** Parse user input into a full config (defaults filled). Throws ZodError with field paths. */
export function parseRunConfig(input: unknown): RunConfig {
  return runConfigSchema.parse(input);
}

/** Strings that look like provider API keys: configs must name environment variables instead. */
const SECRET_PATTERNS = [/\bsk-[A-Za-z0-9_-]{16,}/, /\bBearer\s+[A-Za-z0-9._-]{16,}/i, /\bAIza[0-9A-Za-z_-]{30,}/, /\bhf_[A-Za-z0-9]{20,}/];

/** Paths (dot-joined) of string values in `value` that look like API keys. */
export function findSecretLikeValues(value: unknown, at: string[] = []): string[] {
  if (typeof value === "string") return SECRET_PATTERNS.some((p) => p.test(value)) ? [at.join(".") || "(root)"] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => findSecretLikeValues(v, [...at, String(i)]));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => [
      ...(/^(api_?key|apiKey|authorization|token|secret|password)$/i.test(k) && typeof v === "string" && v.length > 0
        ? [[...at, k].join(".")]
        : []),
      ...findSecretLikeValues(v, [...at, k]),
    ]);
  }
  return [];
}
