/**
 * The conversation shapes shared by the trainer (which writes them), the API and the dashboard (which read them).
 * Stored as JSON on each trajectory, so changes here must stay backwards compatible with stored rows.
 */

/** Chat role as the policy's chat template sees it. */
export type ChatRole = "system" | "user" | "assistant" | "tool";

/**
 * Who actually produced a message. The chat role alone cannot tell a real instruction from a simulated user, or a
 * deterministic tool from an LLM playing the tool, and the inspector must attribute each turn to its author.
 */
export type MessageSource =
  | "system" // task instructions, tool schemas, environment notices
  | "policy" // the model being trained
  | "user_simulator" // an LLM (or the offline provider) playing the user
  | "tool" // deterministic tool / domain code
  | "tool_simulator" // an LLM (or the offline provider) playing the tools
  | "environment"; // error observations, limits reached, format feedback

/** A function call the policy made, parsed from JSON or from a bracketed `[action] ...` text format. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ConversationMessage {
  role: ChatRole;
  source: MessageSource;
  content: string;
  /** 0-based policy turn this message belongs to (the observation a policy turn answers has the same turn). */
  turn: number;
  toolCalls?: ToolCall[];
  /** For role "tool": the call this message answers. */
  toolCallId?: string;
  /** For role "tool": the function name. */
  name?: string;
  /** Per-turn reward given by the environment for the policy turn (policy messages only). */
  turnReward?: number;
  /** Advantage assigned to this policy turn by credit assignment (policy messages only, set after scoring). */
  advantage?: number;
  /** True when the content could not be parsed as the expected action format. */
  formatError?: string;
  /** Ids (LlmCallRecord.id) of the LLM calls that produced this message. */
  llmCallIds?: string[];
  /** Number of tokens of this message in the policy's context (policy messages: generated tokens). */
  tokens?: number;
}

/** "policy": the model being evaluated, when an OpenAI-compatible endpoint plays (evaluation runs). */
export type LlmRole = "user_simulator" | "tool_simulator" | "judge" | "policy";
export const LLM_ROLES: readonly LlmRole[] = ["user_simulator", "tool_simulator", "judge", "policy"] as const;

/** One message of a recorded request. Policy calls carry the tool calls and results of the conversation so far. */
export interface LlmRequestMessage {
  role: string;
  content: string;
  /** An assistant message's calls (their arguments as the model sent them, parsed when they were JSON). */
  toolCalls?: ToolCall[];
  /** A tool result: the call it answers. */
  toolCallId?: string;
}

/** A function offered to the policy as the chat API's `tools` (recorded with each policy call). */
export interface LlmRequestTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One request to an LLM endpoint, exactly as recorded. Never contains an API key or authorisation header. */
export interface LlmCallRecord {
  id: string;
  role: LlmRole;
  model: string;
  /** Endpoint base URL without credentials ("offline" for the built-in provider). */
  endpoint: string;
  request: {
    messages: LlmRequestMessage[];
    params: Record<string, unknown>;
    /** Policy calls: the tools sent with the request. */
    tools?: LlmRequestTool[];
  };
  response: { text: string; toolCalls?: ToolCall[]; finishReason?: string } | null;
  latencyMs: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  /** 1 for the first try; retries increment it (each attempt is its own record). */
  attempt: number;
  error: string | null;
  cached: boolean;
  /** Policy turn this call belongs to, when known. */
  turn: number | null;
  startedAt: string;
}

/** Why an episode ended. */
export type EpisodeEndReason =
  | "user_done" // simulated user said the goal is met
  | "agent_finished" // policy emitted [finish] / a final answer
  | "max_turns"
  | "max_sim_steps"
  | "env_terminal" // environment reached a terminal state (e.g. transfer to human)
  | "context_full" // the policy's context window has no room for another turn
  // Served episodes (trainer/env-server) that stopped before the environment ended them:
  | "client_ended" // the client reset or closed its session mid-episode
  | "idle_expired" // the client sent nothing for the server's idle timeout
  | "server_stopped" // the environment server shut down mid-episode
  | "error"; // unrecoverable environment error (recorded)

export type TrajectoryStatus = "ok" | "truncated" | "unscored" | "error";
