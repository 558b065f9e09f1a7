/**
 * Export of a stored trajectory in Simia-RL's training-record shape, so runs can be compared with (or fed to)
 * Simia-RL tooling. Field names and shapes match what Simia-RL's GeneralSimulated env writes per episode
 * (`_save_trajectory_record` / `_save_gpt_call_info` in ragen/env/simulated_General/env.py), checked against
 * records its own code wrote (trainer/envs/simulated/simia-parity.test.ts): conversation turns are
 * `{role: "human" | "assistant", content}` with every text stripped (tool results and simulated-user turns are both
 * "human" there, an empty agent message stays), each GPT call that returned a reply is
 * `{timestamp, prompt, response, metadata: {step, type, agent_message?}, deployment, temperature, max_tokens}` with
 * type "environment_response" or "final_evaluation", step counting agent messages from 1, and the response as Simia
 * keeps it (after `</think>`, stripped) — a judge reply that did not parse included — and times as Python's
 * `utcnow().isoformat()` writes them (checked against the files Simia's trainer writes: cli/simia-layout.test.ts).
 * Pure: no I/O.
 *
 * Kept on purpose: `termination_reason` is the reason Simia puts in its step info ("gpt_decision", "max_steps");
 * Simia's own file always says "unknown", because it saves the record before setting the reason.
 */
import type { ConversationMessage, LlmCallRecord } from "./conversation";
import { pythonLstrip, pythonStrip } from "./python-values";

/** A GPT reply as Simia's `_call_gpt` returns it: only what follows the first `</think>` (leading newlines dropped), stripped. */
export function simiaReplyText(content: string): string {
  const end = content.indexOf("</think>");
  const after = end === -1 ? content : pythonLstrip(content.slice(end + "</think>".length), "\n");
  return pythonStrip(after);
}

export interface SimiaExportInput {
  messages: ConversationMessage[];
  evaluation: { reward: number | null; reasoning: string } | null;
  endReason: string;
  llmCalls: LlmCallRecord[];
  /** Simia: the environment slot that played the episode (group × group size + index in group). */
  envId?: string | number;
  /** Simia: the sample's index in the dataset (here the task id, a number when it is one). */
  sampleIndex?: string | number;
  /** Simia: episodes that environment slot had played before (here the training step). */
  episodeCount?: number;
  /** Simia: max_simulation_steps (here rollout.maxTurns). */
  maxSteps?: number;
  /** Simia: the dataset sample's `system`; defaults to the episode's system messages. */
  systemPrompt?: string;
  /** Simia: the dataset sample's `conversations` (ShareGPT from/value), when the task came from one. */
  referenceConversations?: { from: string; value: string }[];
  /** Simia's `config` block: the simulator's deployment and sampling settings (never a key). */
  config?: SimiaConfig;
  /** ISO time the episode finished; defaults to the latest call's start (keeps the function pure). */
  timestamp?: string;
}

export interface SimiaConfig {
  deployment: string;
  temperature: number | null;
  max_tokens: number | null;
  /** Simia's field name for the endpoint; here the base URL, or "offline" for the built-in simulator. */
  azure_endpoint: string;
}

export interface SimiaConversationTurn {
  role: "human" | "assistant";
  content: string;
}

export interface SimiaGptCall {
  /** Python's isoformat (naive UTC, microseconds): simiaTimestamp. */
  timestamp: string;
  prompt: string;
  response: string | null;
  /** Simia's: the agent messages so far (from 1), the call's kind, and for a simulator call the agent message it answers. */
  metadata: { step: number | null; type: "environment_response" | "final_evaluation" | "agent_response"; agent_message?: string };
  deployment: string;
  temperature: number | null;
  max_tokens: number | null;
}

export interface SimiaRecord {
  env_id: string | number | null;
  sample_index: string | number | null;
  episode_count: number | null;
  timestamp: string;
  /** null when the episode is unscored: Simia-RL would have written 0, we keep the distinction. */
  reward: number | null;
  reasoning: string;
  num_steps: number;
  max_steps: number | null;
  termination_reason: string;
  system_prompt: string;
  reference_conversations: { from: string; value: string }[];
  conversation_history: SimiaConversationTurn[];
  gpt_call_history: SimiaGptCall[];
  config: SimiaConfig | null;
}

/**
 * A time as Simia writes it, Python's `datetime.utcnow().isoformat()`: naive UTC with microseconds, the fraction left
 * out when it is zero (`2025-03-04T05:06:07.250000`, `2025-03-04T05:06:07`).
 */
export function simiaTimestamp(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const whole = d.toISOString().slice(0, 19);
  const ms = d.getUTCMilliseconds();
  return ms ? `${whole}.${String(ms * 1000).padStart(6, "0")}` : whole;
}

/** Simia-RL names: "gpt_decision" when the simulator ended the dialogue, "max_steps" at the step limit. */
export function simiaTerminationReason(endReason: string): string {
  switch (endReason) {
    case "user_done":
      return "gpt_decision";
    case "max_turns":
    case "max_sim_steps":
    case "context_full":
      return "max_steps";
    default:
      return endReason;
  }
}

function promptText(messages: { role: string; content: string }[]): string {
  // Simia-RL sends one user message per call; multi-message requests are flattened with role labels.
  if (messages.length === 1) return messages[0].content;
  return messages.map((m) => `${m.role}: ${m.content}`).join("\n\n");
}

function numberOrNull(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/**
 * A message's text with its calls. A policy that writes its calls in its text already shows them; one whose calls
 * came as data (an API model's tool_calls) gets them written out as Hermes `<tool_call>` blocks, so the record keeps
 * what the agent did.
 */
function withCalls(m: ConversationMessage): string {
  const calls = (m.toolCalls ?? []).filter((c) => !m.content.includes(c.name));
  if (!calls.length) return m.content;
  const blocks = calls.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n</tool_call>`);
  return [m.content.trim(), ...blocks].filter(Boolean).join("\n");
}

export function toSimiaRecord(input: SimiaExportInput): SimiaRecord {
  const system = input.messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n\n");
  const conversation = input.messages
    .filter((m) => m.role !== "system")
    .map((m): SimiaConversationTurn => ({ role: m.source === "policy" ? "assistant" : "human", content: pythonStrip(withCalls(m)) }));
  const agentMessages = input.messages.filter((m) => m.source === "policy");
  // Simia records one entry per call that returned a reply (its retries on errors happen inside the call), a judge
  // reply it could not parse included; calls that failed outright stay in Rollout Lab's own call history and API.
  const calls = input.llmCalls
    .filter((c) => c.response !== null)
    .map((c): SimiaGptCall => {
      const judge = c.role === "judge";
      // Simia's step is its count of agent messages: the judge comes after all of them, a simulator call answers turn + 1.
      const step = judge ? agentMessages.length : c.turn === null ? null : c.turn + 1;
      const answered = judge ? undefined : agentMessages.find((m) => m.turn === c.turn);
      return {
        timestamp: simiaTimestamp(c.startedAt),
        prompt: promptText(c.request.messages),
        response: simiaReplyText(c.response?.text ?? ""),
        metadata: {
          step,
          type: judge ? "final_evaluation" : c.role === "policy" ? "agent_response" : "environment_response",
          ...(answered && { agent_message: pythonStrip(answered.content) }),
        },
        deployment: c.model,
        temperature: numberOrNull(c.request.params.temperature),
        max_tokens: numberOrNull(c.request.params.max_completion_tokens ?? c.request.params.max_tokens),
      };
    });
  const latest = input.llmCalls.reduce<string | null>((a, c) => (a === null || c.startedAt > a ? c.startedAt : a), null);
  return {
    env_id: input.envId ?? null,
    sample_index: input.sampleIndex ?? null,
    episode_count: input.episodeCount ?? null,
    timestamp: simiaTimestamp(input.timestamp ?? latest ?? new Date(0).toISOString()),
    reward: input.evaluation?.reward ?? null,
    reasoning: input.evaluation?.reasoning ?? "",
    num_steps: agentMessages.length,
    max_steps: input.maxSteps ?? null,
    termination_reason: simiaTerminationReason(input.endReason),
    system_prompt: input.systemPrompt ?? system,
    reference_conversations: input.referenceConversations ?? [],
    conversation_history: conversation,
    gpt_call_history: calls,
    config: input.config ?? null,
  };
}
