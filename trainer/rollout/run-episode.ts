/**
 * Runs one episode: reset -> (policy -> step)* -> evaluate, and returns everything the inspector and the trainer
 * need: the conversation with per-turn rewards, the evaluation, why it ended, every LLM call it made, timings.
 * It never throws: an environment or policy exception ends the episode with status "error" and the message
 * recorded, so one bad task cannot kill a batch of 128.
 */
import type { ConversationMessage, EpisodeEndReason, LlmCallRecord, ToolCall, TrajectoryStatus } from "../../lib/conversation";
import type { Environment, EpisodeContext, Evaluation, LlmChat, StructuredToolCall, Task, ToolSchema } from "../envs/types";
import { readPolicyAction, toolCallIdPrefix } from "../envs/parse";

export interface PolicyOutput {
  /** The reply as the policy produced it (stored as the message's content). */
  text: string;
  /** Calls the policy made as data (an API's tool_calls, or the text read by a model family's parser). */
  toolCalls?: StructuredToolCall[];
  /** Generated tokens (for length metrics and the loss mask). */
  tokens?: number;
  /** Per-token log-probs under the sampling policy (GRPO's old-policy log-probs). */
  logProbs?: number[];
  /** Set instead of a turn when the policy cannot take one (e.g. "context_full"): the episode ends and is scored. */
  endEpisode?: EpisodeEndReason;
}

export interface PolicyTurnInfo {
  turn: number;
  taskId: string;
  /** The episode's tools as function schemas (only when the context presents tools as "schemas"). */
  tools?: ToolSchema[];
}

export type Policy = (messages: ConversationMessage[], info: PolicyTurnInfo) => Promise<PolicyOutput>;

/** An LlmChat that can route its records to a per-episode sink (LlmClient implements this). */
export interface RecordingLlmChat extends LlmChat {
  bind(onCall: (record: LlmCallRecord) => void, signal?: AbortSignal): LlmChat;
}

function isRecording(llm: LlmChat): llm is RecordingLlmChat {
  return typeof (llm as Partial<RecordingLlmChat>).bind === "function";
}

export interface RunEpisodeOptions<TData = unknown> {
  env: Environment<TData>;
  task: Task<TData>;
  policy: Policy;
  ctx: Omit<EpisodeContext, "maxTurns">;
  maxTurns: number;
  /** Streams each message as it is appended (the trainer persists step by step). */
  onMessage?: (message: ConversationMessage) => void;
}

export interface EpisodeTrajectory {
  envName: string;
  taskId: string;
  seed: number;
  messages: ConversationMessage[];
  evaluation: Evaluation | null;
  endReason: EpisodeEndReason;
  status: TrajectoryStatus;
  error: string | null;
  /** Policy turns taken. */
  turns: number;
  /** Per policy turn, what the sampler reported (aligned with the policy messages). */
  policyOutputs: { turn: number; tokens?: number; logProbs?: number[] }[];
  llmCalls: LlmCallRecord[];
  timings: {
    startedAt: string;
    totalMs: number;
    policyMs: number;
    /** reset + step time, including the simulator calls made inside them. */
    envMs: number;
    evaluateMs: number;
    /** Sum of this episode's LLM call latencies: its serial LLM time. */
    llmMs: number;
  };
}

/**
 * The policy message's tool calls, for the inspector. Set only when the environment answered exactly these calls
 * (its tool observations reference the ids parsed with the shared `toolCallIdPrefix` convention), so an
 * environment with its own action format is never misattributed.
 */
function callsAnswered(out: PolicyOutput, turn: number, observations: ConversationMessage[]): ToolCall[] | undefined {
  const answeredIds = observations.filter((o) => o.role === "tool" && o.toolCallId).map((o) => o.toolCallId as string);
  if (answeredIds.length === 0) return undefined;
  const parsed = readPolicyAction(out.text, out.toolCalls, { idPrefix: toolCallIdPrefix(turn) });
  if (!parsed.ok) return undefined;
  const a = parsed.action;
  const calls = a.kind === "tool_calls" ? a.calls : a.kind === "action" && a.call ? [a.call] : [];
  return answeredIds.every((id) => calls.some((c) => c.id === id)) ? calls : undefined;
}

/** Reasons an episode stopped before the environment or the policy finished it. */
const TRUNCATING: ReadonlySet<EpisodeEndReason> = new Set<EpisodeEndReason>([
  "max_turns",
  "max_sim_steps",
  "context_full",
  "client_ended",
  "idle_expired",
  "server_stopped",
]);

export function statusOf(endReason: EpisodeEndReason, evaluation: Evaluation | null): TrajectoryStatus {
  if (endReason === "error" || evaluation === null) return "error";
  if (evaluation.reward === null) return "unscored";
  if (TRUNCATING.has(endReason)) return "truncated";
  return "ok";
}

export async function runEpisode<TData>(opts: RunEpisodeOptions<TData>): Promise<EpisodeTrajectory> {
  const startedAt = new Date();
  const t0 = performance.now();
  const llmCalls: LlmCallRecord[] = [];
  const sink = (r: LlmCallRecord): void => {
    llmCalls.push(r);
    opts.ctx.onLlmCall?.(r);
  };
  const llm = isRecording(opts.ctx.llm) ? opts.ctx.llm.bind(sink, opts.ctx.signal) : opts.ctx.llm;
  const messages: ConversationMessage[] = [];
  const policyOutputs: EpisodeTrajectory["policyOutputs"] = [];
  const push = (m: ConversationMessage): void => {
    messages.push(m);
    opts.onMessage?.(m);
  };
  let policyMs = 0;
  let envMs = 0;
  let evaluateMs = 0;
  let turns = 0;
  let endReason: EpisodeEndReason = "max_turns";
  let evaluation: Evaluation | null = null;
  let error: string | null = null;

  const timed = async <T>(fn: () => Promise<T>, add: (ms: number) => void): Promise<T> => {
    const s = performance.now();
    try {
      return await fn();
    } finally {
      add(performance.now() - s);
    }
  };

  try {
    const episode = opts.env.createEpisode(opts.task, { ...opts.ctx, llm, onLlmCall: sink, maxTurns: opts.maxTurns });
    for (const m of await timed(
      () => episode.reset(),
      (ms) => (envMs += ms),
    ))
      push(m);
    for (let turn = 0; turn < opts.maxTurns; turn++) {
      if (opts.ctx.signal?.aborted) throw new Error("episode aborted");
      const tools = episode.tools?.();
      const out = await timed(
        () => opts.policy(messages, { turn, taskId: opts.task.id, ...(tools?.length ? { tools } : {}) }),
        (ms) => (policyMs += ms),
      );
      if (out.endEpisode) {
        endReason = out.endEpisode;
        break;
      }
      turns++;
      policyOutputs.push({ turn, tokens: out.tokens, logProbs: out.logProbs });
      const policyMessage: ConversationMessage = {
        role: "assistant",
        source: "policy",
        content: out.text,
        turn,
        ...(out.tokens !== undefined ? { tokens: out.tokens } : {}),
      };
      push(policyMessage);
      const res = await timed(
        () => episode.step(out.text, turn, out.toolCalls),
        (ms) => (envMs += ms),
      );
      if (res.turnReward !== undefined) policyMessage.turnReward = res.turnReward;
      // Environments flag a format error on the observation they return for it (see envs/parse/error-observation).
      const formatError = res.observations.find((o) => o.source === "environment" && o.formatError)?.formatError;
      if (formatError) policyMessage.formatError = formatError;
      const calls = callsAnswered(out, turn, res.observations);
      if (calls) policyMessage.toolCalls = calls;
      for (const o of res.observations) push(o);
      if (res.done) {
        endReason = res.endReason ?? "env_terminal";
        break;
      }
    }
    evaluation = await timed(
      () => episode.evaluate(endReason),
      (ms) => (evaluateMs += ms),
    );
  } catch (e) {
    endReason = "error";
    evaluation = null;
    error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
  return {
    envName: opts.env.name,
    taskId: opts.task.id,
    seed: opts.ctx.seed,
    messages,
    evaluation,
    endReason,
    status: statusOf(endReason, evaluation),
    error,
    turns,
    policyOutputs,
    llmCalls,
    timings: {
      startedAt: startedAt.toISOString(),
      totalMs: performance.now() - t0,
      policyMs,
      envMs,
      evaluateMs,
      llmMs: llmCalls.reduce((a, c) => a + c.latencyMs, 0),
    },
  };
}

/** Runs many episodes with at most `concurrency` in flight; results keep the order of `jobs`. */
export async function runEpisodes<TData>(jobs: readonly RunEpisodeOptions<TData>[], concurrency: number): Promise<EpisodeTrajectory[]> {
  const results: EpisodeTrajectory[] = new Array(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await runEpisode(jobs[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, jobs.length)) }, worker));
  return results;
}
