/**
 * An OpenAI-compatible model as the policy of an episode, the way τ²-bench's own agent reaches its model through
 * litellm: the conversation goes out as chat messages (the policy's calls as `tool_calls`, each tool result as a
 * `tool` message answering its call by id), the episode's tools as function schemas in `tools`, and the reply's
 * `tool_calls` come back as data for the environment to read with `readPolicyAction` — their arguments exactly as
 * the model wrote them, so a malformed call meets the environment's format-error path. Environments with a text
 * protocol (UserRL's `[action]`, EnvTuning's `<tool_call>`) offer no tools and the model answers in text.
 *
 * Every call is an LlmCallRecord of role "policy" (request, response, latency, tokens, cost, attempts), recorded
 * with the episode and shown beside the message it produced.
 */
import type { ConversationMessage, LlmCallRecord } from "../../lib/conversation";
import { textWithToolCalls } from "../envs/parse";
import type { StructuredToolCall } from "../envs/types";
import type { LlmClient, WireMessage } from "../llm/client";
import type { Policy, PolicyOutput } from "../rollout/run-episode";

/** What the model sent at one turn (kept so a refused call can be shown back to it as what it wrote). */
interface SentTurn {
  text: string;
  toolCalls: StructuredToolCall[];
}

/**
 * The conversation as chat messages. A tool result is a `tool` message only when it answers a call of the
 * assistant message before it (the API refuses any other); otherwise it reads as a user message naming the tool.
 * A policy turn whose calls the environment refused (bad JSON, unknown function) carries no answered calls: its
 * calls are written back as Hermes `<tool_call>` text so the model sees what it sent beside the format error.
 */
export function toWireMessages(messages: readonly ConversationMessage[], sent: ReadonlyMap<number, SentTurn> = new Map()): WireMessage[] {
  const out: WireMessage[] = [];
  let openCalls = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role === "tool") {
      if (m.toolCallId && openCalls.has(m.toolCallId)) {
        out.push({ role: "tool", tool_call_id: m.toolCallId, content: m.content });
        openCalls.delete(m.toolCallId);
      } else out.push({ role: "user", content: m.name ? `[${m.name} result] ${m.content}` : m.content });
      return;
    }
    openCalls = new Set();
    if (m.role === "assistant" && m.toolCalls?.length) {
      // The API needs every call answered by the tool messages right after it: calls left unanswered become text.
      const answered = new Set<string>();
      for (let j = i + 1; j < messages.length && messages[j].role === "tool"; j++) {
        const id = messages[j].toolCallId;
        if (id) answered.add(id);
      }
      const calls = m.toolCalls.filter((c) => answered.has(c.id));
      const unanswered = m.toolCalls.filter((c) => !answered.has(c.id));
      const text = textWithToolCalls(m.content, unanswered);
      if (calls.length === 0) {
        out.push({ role: "assistant", content: text.trim() === "" ? "(empty reply)" : text });
        return;
      }
      out.push({
        role: "assistant",
        content: text.trim() === "" ? null : text,
        tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
      });
      openCalls = new Set(calls.map((c) => c.id));
      return;
    }
    if (m.role === "assistant") {
      const refused = m.source === "policy" ? sent.get(m.turn) : undefined;
      const content = refused?.toolCalls.length ? textWithToolCalls(refused.text, refused.toolCalls) : m.content;
      // The API takes an empty assistant message badly; an empty reply is shown as what it was.
      out.push({ role: "assistant", content: content.trim() === "" ? "(empty reply)" : content });
      return;
    }
    out.push({ role: m.role, content: m.content });
  });
  return out;
}

export interface EndpointPolicyOptions {
  /** A client with the "policy" role configured (its sampling parameters, retries and concurrency cap apply). */
  llm: LlmClient;
  signal?: AbortSignal;
  /** Called before every call; throws to refuse it (the cost ceiling). */
  beforeCall?: () => void;
  /** The API's `seed` for this episode's calls (each trial its own, as τ² seeds each trial). */
  seed?: number;
}

export interface EpisodePolicy {
  policy: Policy;
  /** Every policy call this episode made, failed attempts included, in order. */
  calls: LlmCallRecord[];
}

/** A fresh policy for one episode (it remembers what it sent, and collects its call records). */
export function createEndpointPolicy(opts: EndpointPolicyOptions): EpisodePolicy {
  const calls: LlmCallRecord[] = [];
  const sent = new Map<number, SentTurn>();
  const policy: Policy = async (messages, info): Promise<PolicyOutput> => {
    opts.beforeCall?.();
    const reply = await opts.llm.chatWithTools(
      {
        role: "policy",
        messages: toWireMessages(messages, sent),
        tools: info.tools,
        turn: info.turn,
        ...(opts.seed !== undefined ? { params: { seed: opts.seed } } : {}),
      },
      { onCall: (r) => calls.push(r), signal: opts.signal },
    );
    const toolCalls: StructuredToolCall[] = reply.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    sent.set(info.turn, { text: reply.text, toolCalls });
    const completion = calls.find((c) => c.id === reply.callId)?.completionTokens;
    return { text: reply.text, ...(toolCalls.length ? { toolCalls } : {}), ...(completion !== undefined ? { tokens: completion } : {}) };
  };
  return { policy, calls };
}
