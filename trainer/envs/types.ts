/**
 * The environment contract every environment family implements (simulated, dialogue replay, tool domains,
 * function calling, UserRL gyms). An episode is reset from a task and stepped with each policy message until
 * done; it ends with an evaluation. Environments never see the policy model, only its text.
 */
import type { ConversationMessage, EpisodeEndReason, LlmCallRecord, LlmRole } from "../../lib/conversation";
import type { StructuredToolCall, ToolSchema } from "./parse";

export type { StructuredToolCall, ToolSchema };

/**
 * How an episode hands its tools to the policy.
 * - "prompt": written into the system prompt in the environment's own text (the built-in byte-level policies, and
 *   every environment whose research system defines its own text protocol).
 * - "schemas": left out of the prompt and returned by `Episode.tools()` as function schemas, for a chat template
 *   that renders tools itself (a Hugging Face checkpoint's) or an API's `tools` parameter (an endpoint policy, an
 *   OpenEnv client). Environments whose protocol is their own text (EnvTuning's, UserRL's, gorilla's Python calls)
 *   keep it either way and return no schemas.
 */
export type ToolPresentation = "prompt" | "schemas";

/** One task of a dataset. `data` is family-specific and JSON-serialisable (it is stored with each group). */
export interface Task<TData = unknown> {
  id: string;
  /** Dataset split, e.g. "train" / "test". */
  split: string;
  /** Free-form labels used by curriculum filters (e.g. "format", "base", "long_context"). */
  tags: string[];
  data: TData;
}

/** Minimal chat interface an environment uses to ask an LLM role (real endpoint or the offline provider). */
export interface LlmChatRequest {
  role: LlmRole;
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  /** Policy turn the call belongs to (for attribution in the inspector). */
  turn?: number;
  /**
   * The deterministic reply the built-in offline provider gives for this request (it has no language model, so each
   * environment supplies its own rule-based simulator here). Ignored when a real endpoint serves the role.
   */
  offline?: () => string | Promise<string>;
  responseFormat?: "text" | "json";
  /**
   * Whether a reply is usable (null) or why not: an HTTP 200 whose text the caller cannot use (a judge reply that is
   * not the JSON asked for) is recorded as a failed call with this reason, and the caller decides what to do.
   */
  validate?: (text: string) => string | null;
  /**
   * Sampling parameters the environment's reference system sends with this request (Simia's temperature and
   * max_completion_tokens): they replace the endpoint's own. Ignored by the offline provider.
   */
  params?: { temperature?: number; max_completion_tokens?: number };
}
export interface LlmChatResponse {
  text: string;
  callId: string;
}
export interface LlmChat {
  chat(req: LlmChatRequest): Promise<LlmChatResponse>;
}

/** Everything an episode may use besides its task. */
export interface EpisodeContext {
  seed: number;
  llm: LlmChat;
  /** Receives every LLM call as it happens (the trainer persists them). */
  onLlmCall?: (call: LlmCallRecord) => void;
  signal?: AbortSignal;
  maxTurns: number;
  /** Default "prompt". */
  toolPresentation?: ToolPresentation;
}

export interface StepResult {
  /** New messages after the policy's message (tool results, simulated user reply, environment notices). */
  observations: ConversationMessage[];
  /** Per-turn reward for the policy message just taken (UserRL-style turn-level rewards), if the env gives one. */
  turnReward?: number;
  done: boolean;
  endReason?: EpisodeEndReason;
}

export interface Evaluation {
  /** null when the episode could not be scored (e.g. the judge failed after retries) — never coerce to 0. */
  reward: number | null;
  components: Record<string, number>;
  reasoning: string;
  finalState?: unknown;
  /** The state the environment expected (for diffing in the inspector), when it has one. */
  expectedState?: unknown;
}

export interface Episode {
  /** Opening messages: system prompt (with tool descriptions) and, usually, the first user message. */
  reset(): Promise<ConversationMessage[]>;
  /**
   * The function schemas the policy may call, when the context asked for "schemas" and the environment's protocol
   * is function calling; absent or [] otherwise. Valid after reset; may change between turns (BFCL's miss_func
   * reveals a function at its turn).
   */
  tools?(): ToolSchema[];
  /**
   * Apply one policy message at turn `turn`: the raw generated text, and the calls it made when they arrive as data
   * (read them with `readPolicyAction`, which falls back to parsing the text).
   */
  step(policyText: string, turn: number, toolCalls?: readonly StructuredToolCall[]): Promise<StepResult>;
  /** Score the finished episode. Called once, after done or after the trainer stopped stepping. */
  evaluate(endReason: EpisodeEndReason): Promise<Evaluation>;
}

/** One message of a demonstration (OpenAI chat format); the assistant's messages are what the policy imitates. */
export interface DemonstrationMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  /** false: context only, not imitated (OpenAI fine-tuning's `weight: 0`); default: trained iff role is assistant. */
  train?: boolean;
}

/** A gold conversation for the SFT warm-start, laid out as the policy would see it in an episode of the task. */
export interface Demonstration {
  /** The task it solves, when it comes from one. */
  taskId?: string;
  messages: DemonstrationMessage[];
}

export interface Environment<TData = unknown> {
  /** Registry name used in run configs, e.g. "simulated", "tau2-retail", "bfcl", "sgd", "userrl-turtle". */
  name: string;
  description: string;
  /** The tasks shipped with the environment (used when the run config names no dataset path). */
  builtinTasks(): Task<TData>[];
  /** Load tasks from a user's dataset path; throws DatasetError naming the file and record on bad input. */
  loadTasks?(path: string): Promise<Task<TData>[]>;
  createEpisode(task: Task<TData>, ctx: EpisodeContext): Episode;
  /**
   * Gold trajectories for `tasks`, for the SFT warm-start (grpo.sftWarmupSteps) when the run names no demonstrations
   * file. Only for environments with real gold data (an optimal strategy, recorded dialogues, ground-truth calls);
   * tasks without any are skipped, so the result may be empty.
   */
  demonstrations?(tasks: Task<TData>[]): Promise<Demonstration[]>;
}

/** Thrown by importers: names the file and the record (or line, for JSON Lines) so a user can fix the data. */
export class DatasetError extends Error {
  constructor(
    readonly file: string,
    readonly record: string | number | null,
    detail: string,
    unit: "record" | "line" = "record",
  ) {
    super(`${file}${record === null ? "" : ` (${unit} ${record})`}: ${detail}`);
    this.name = "DatasetError";
  }
}
