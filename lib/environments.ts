/**
 * The environment catalog the web app can see without importing the trainer: names, what each reproduces, and the
 * launch-form preset for each family. The trainer's registry (trainer/envs/registry.ts) must register exactly
 * these names — a unit test there checks it.
 */
import type { RunConfigInput } from "./run-config";

export interface EnvironmentInfo {
  name: string;
  family: "simulated" | "dialogue" | "tool-domain" | "function-calling" | "userrl";
  seedSystem: string;
  description: string;
  /** Run-config fields the launch form prefills for this environment. */
  preset: RunConfigInput;
}

/**
 * A launch preset that learns on a CPU within minutes (figures: `npm run bench:learn`, docs/benchmarks.md). The common recipe
 * of the seed systems at toy scale: a policy whose context holds the environment's prompts (measured opening
 * prompts: guess-number 9 bytes, UserRL gyms 300–550, bfcl 1.4–2.1 K, sgd 2.1 K, simulated 2.5 K, τ² retail 10 K; the
 * byte tokenizer spends one token per byte), an SFT warm-start on the environment's gold or scripted solver
 * demonstrations, then GRPO. Long contexts train in micro-batches (attention keeps T × T probabilities).
 */
function learningPreset(p: {
  model?: "tiny" | "small" | "base";
  context: number;
  maxTurns: number;
  maxNewTokens: number;
  sft: number;
  groups?: number;
  groupSize?: number;
  microBatch?: number;
  /** Optimizer steps per training step = episodes / minibatch (default 1). */
  minibatchesPerStep?: number;
  lr?: number;
  steps?: number;
  turnCredit?: boolean;
  environmentOptions?: Record<string, unknown>;
  /** Activation checkpointing, for contexts whose attention would not fit otherwise. */
  recomputeActivations?: boolean;
}): RunConfigInput {
  const groups = p.groups ?? 4;
  const groupSize = p.groupSize ?? 4;
  return {
    ...(p.environmentOptions ? { environmentOptions: p.environmentOptions } : {}),
    policy: { model: p.model ?? "small", contextLength: p.context, ...(p.recomputeActivations ? { recomputeActivations: true } : {}) },
    rollout: { maxTurns: p.maxTurns, maxNewTokens: p.maxNewTokens },
    grpo: {
      steps: p.steps ?? 40,
      groupsPerStep: groups,
      groupSize,
      minibatchSize: (groups * groupSize) / (p.minibatchesPerStep ?? 1),
      microBatchSize: p.microBatch,
      learningRate: p.lr ?? 1e-3,
      sftWarmupSteps: p.sft,
      ...(p.turnCredit ? { turnCredit: "r2g" as const, trajectoryScore: "sum" as const, gamma: 0.9 } : {}),
    },
    evaluation: { testFreq: 0 },
    checkpoint: { saveFreq: 10 },
  };
}

export const ENVIRONMENT_CATALOG: EnvironmentInfo[] = [
  {
    name: "simulated",
    family: "simulated",
    seedSystem: "Simia-RL",
    description: "An LLM plays the user and the tools from a task description; an LLM judge scores the episode (0/1 with reasoning).",
    preset: learningPreset({ context: 4096, maxTurns: 5, maxNewTokens: 96, sft: 30, groups: 2, microBatch: 1, steps: 20 }),
  },
  {
    name: "sgd",
    family: "dialogue",
    seedSystem: "Agent Gym",
    description:
      "Schema-Guided Dialogue goals: a simulated user pursues a real dialogue's goal; a tool mocker answers from recorded service results (fuzzy and LLM fallbacks); every turn judged.",
    // The built-in goals come without recorded dialogues, so no warm-start (a dataset path with dialogues gives one).
    // agent_gym's per-turn judge gives every turn its own reward: credited turn by turn (UserRL's r2g).
    preset: learningPreset({ context: 3072, maxTurns: 5, maxNewTokens: 96, sft: 0, groups: 2, microBatch: 1, steps: 20, turnCredit: true }),
  },
  {
    name: "tau2-retail",
    family: "tool-domain",
    seedSystem: "τ²-bench / SkyRL",
    description:
      "Retail customer service (or a τ² airline or mock folder) on a private copy of the database; reward = the product of the checks each task's reward basis names (DB, COMMUNICATE, ACTION, NL / env assertions; DB × COMMUNICATE when it names none), as τ²'s own code computes it.",
    // τ²'s policy document and 16 tool schemas are 9,750 byte tokens: the context holds them, the first reply and
    // a second turn (the pre-flight check's bar). Its T × T attention would take 3.4 GB of the wasm heap's 4 GiB for
    // all layers at once, so activations are recomputed layer by layer (1.7 GB). It runs, but cannot learn τ² at this
    // scale (bench:learn, docs/benchmarks.md): use a BPE checkpoint (policy.model / policy.tokenizer) for real work.
    preset: learningPreset({
      model: "tiny",
      context: 10240,
      recomputeActivations: true,
      maxTurns: 8,
      maxNewTokens: 128,
      sft: 10,
      groups: 2,
      groupSize: 2,
      microBatch: 1,
      steps: 10,
    }),
  },
  {
    name: "bfcl",
    family: "function-calling",
    seedSystem: "AWorld EnvTuning",
    description:
      "BFCL multi-turn function calling against stateful APIs, in EnvTuning's <think>/<tool_call>/<answer> interaction; its format and progress rewards; curriculum stages that switch them.",
    preset: learningPreset({ context: 3072, maxTurns: 6, maxNewTokens: 160, sft: 30, groups: 2, microBatch: 1, steps: 20 }),
  },
  {
    name: "userrl-telepathy",
    family: "userrl",
    seedSystem: "UserRL",
    description: "Guess the entity the user thinks of by asking questions.",
    // 1,536: a 420-token opening plus four turns whose format-error feedback runs ~200 tokens each ended 98% of
    // episodes context_full at 1,024 (bench:learn).
    preset: learningPreset({ context: 1536, maxTurns: 4, maxNewTokens: 40, sft: 40, microBatch: 4, turnCredit: true }),
  },
  {
    name: "userrl-turtle",
    family: "userrl",
    seedSystem: "UserRL",
    description: "Lateral-thinking puzzle; the user answers yes / no / irrelevant.",
    preset: learningPreset({ context: 1536, maxTurns: 4, maxNewTokens: 192, sft: 40, microBatch: 2, turnCredit: true }),
  },
  {
    name: "userrl-function",
    family: "userrl",
    seedSystem: "UserRL",
    description: "Discover a hidden function from queries (deterministic).",
    preset: learningPreset({ context: 1536, maxTurns: 5, maxNewTokens: 24, sft: 40, microBatch: 4, turnCredit: true }),
  },
  {
    name: "userrl-intention",
    family: "userrl",
    seedSystem: "UserRL",
    description: "Infer a vague request's real intent by asking clarifying questions.",
    preset: learningPreset({ context: 1536, maxTurns: 6, maxNewTokens: 64, sft: 40, microBatch: 2, turnCredit: true }),
  },
  {
    name: "userrl-persuade",
    family: "userrl",
    seedSystem: "UserRL",
    description: "Argue a user who strongly agrees with a statement round to disagreeing (an LLM user states its stance).",
    // A 230-byte opening and three ~70-byte arguments, each answered in ~80 bytes.
    preset: learningPreset({ context: 1536, maxTurns: 4, maxNewTokens: 96, sft: 40, microBatch: 2, turnCredit: true }),
  },
  {
    name: "userrl-search",
    family: "userrl",
    seedSystem: "UserRL",
    description: "Answer a question, searching as needed (an LLM plays the search engine; offline, the task's documents).",
    // A 250-byte opening plus up to five results of ~400 bytes each.
    preset: learningPreset({ context: 1536, maxTurns: 4, maxNewTokens: 48, sft: 40, microBatch: 2, turnCredit: true }),
  },
  {
    name: "userrl-travel",
    family: "userrl",
    seedSystem: "UserRL",
    description:
      "Plan a trip: [search] each aspect's options, ask concrete questions to uncover the user's hidden preferences, [answer] one option per aspect; scored by best (1) / acceptable (0.8) choices.",
    // A ~1.1 KB opening, option listings of ~1 KB per aspect, and eight ~70-byte gold turns for two aspects.
    preset: learningPreset({ context: 3072, maxTurns: 8, maxNewTokens: 64, sft: 40, microBatch: 1, turnCredit: true }),
  },
  {
    name: "userrl-tau",
    family: "userrl",
    seedSystem: "UserRL / tau-bench",
    description:
      "tau-bench retail or airline customer service as UserRL's TauGym: list tools with [search], talk to the customer with [action], call tools with [answer]; reward 1 when the data and required outputs match the gold actions'.",
    // A 900-byte opening; gold play is one ~110-byte [answer] per tool call, each answered with a ~700-byte record.
    preset: learningPreset({ context: 3072, maxTurns: 6, maxNewTokens: 128, sft: 40, microBatch: 1, turnCredit: true }),
  },
  {
    name: "guess-number",
    family: "userrl",
    seedSystem: "built-in",
    description: "A tiny multi-turn guessing game with a deterministic reward; needs no LLM (the learning demo).",
    preset: learningPreset({
      model: "tiny",
      context: 512,
      minibatchesPerStep: 2,
      maxTurns: 4,
      maxNewTokens: 4,
      sft: 30,
      groupSize: 8,
      lr: 2e-3,
      environmentOptions: { max: 4 },
    }),
  },
];

export const ENVIRONMENT_NAMES = ENVIRONMENT_CATALOG.map((e) => e.name);

export function findEnvironment(name: string): EnvironmentInfo | undefined {
  return ENVIRONMENT_CATALOG.find((e) => e.name === name);
}

/** The launch form's default for an environment: the preset the form starts from and loads when one is chosen. */
export function presetConfig(name: string): RunConfigInput {
  return { ...(findEnvironment(name)?.preset ?? {}), environment: name };
}

/** The environment the launch form opens with. */
export const DEFAULT_ENVIRONMENT = "simulated";
