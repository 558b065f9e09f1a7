/**
 * How a policy reads and writes a conversation: its tokenizer, its chat template (a checkpoint's own, or a built-in
 * one), the token that ends its turn, the ids that stop its sampling and the format its tool calls take. Built once
 * per policy (load-chat-format.ts); the rollout renders every prompt through it (rollout/episode-tokens.ts), the
 * CLI's `chat render` / `chat parse` print exactly what it produces.
 *
 * Conversations reach the template as transformers' apply_chat_template receives them from an OpenAI-style client:
 * tool results as `role: "tool"` messages (the template decides their layout), and, when the episode offers tools,
 * each assistant reply as the content and `tool_calls` its family's parser reads from it, with the ids the
 * environment answered. Without tools a reply goes back as the text sampled.
 */
import type { ConversationMessage } from "../../../lib/conversation";
import type { Tokenizer } from "../../../lib/tokenizer/types";
import { toolCallIdPrefix, type StructuredToolCall, type ToolSchema } from "../../envs/parse";
import { ChatTemplate, ChatTemplateError, type TemplateMessage, type TemplateRenderInput, type TemplateTool } from "./template";
import { parseToolCalls, type ParsedReply, type ToolCallFormat } from "./tool-call-formats";

export interface ChatFormatOptions {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  /** Extra template variables (RunConfig policy.chatTemplateKwargs). */
  kwargs?: Record<string, unknown>;
  /** The format replies write calls in; null: tools are not given to the template (environments write them). */
  toolCallFormat: ToolCallFormat | null;
  /** generation_config.json's eos_token_id(s): sampling stops on each, as transformers' generate does. */
  eosTokenIds?: number[];
  /** The folder the tokenizer files came from (null for the byte tokenizer). */
  folder?: string | null;
}

const PROBE_REPLY = "rollout_lab_probe_reply";
const PROBE_TOOL: TemplateTool = {
  type: "function",
  function: { name: "rollout_lab_probe_tool", description: "probe", parameters: { type: "object", properties: {} } },
};

export const toTemplateTool = (t: ToolSchema): TemplateTool => ({
  type: "function",
  function: { name: t.name, description: t.description, parameters: t.parameters },
});

export class ChatFormat {
  readonly tokenizer: Tokenizer;
  readonly template: ChatTemplate;
  readonly kwargs: Record<string, unknown>;
  readonly toolCallFormat: ToolCallFormat | null;
  /** The token the template closes an assistant turn with (<|im_end|>, <|eot_id|>, </s>). */
  readonly endOfTurn: { text: string; id: number };
  /** Sampling stops on any of these: the end-of-turn token and every eos id of generation_config.json. */
  readonly stopIds: number[];
  /** Where its tokenizer files are (a checkpoint saved from this policy gets copies); null for the byte tokenizer. */
  readonly folder: string | null;

  constructor(opts: ChatFormatOptions) {
    this.folder = opts.folder ?? null;
    this.tokenizer = opts.tokenizer;
    this.template = opts.template;
    this.kwargs = opts.kwargs ?? {};
    this.toolCallFormat = opts.toolCallFormat;
    this.endOfTurn = this.probeEndOfTurn();
    const eos = [this.endOfTurn.id, ...(opts.eosTokenIds ?? [])];
    this.stopIds = [...new Set(eos.filter((id) => Number.isInteger(id) && id >= 0 && id < this.tokenizer.vocabSize))];
  }

  /** "schemas" when the template renders tools and replies are read by a known parser, else "prompt". */
  get toolPresentation(): "schemas" | "prompt" {
    return this.toolCallFormat ? "schemas" : "prompt";
  }

  /** Whether the template writes the tools it is given (a probe render with one tool). */
  rendersTools(): boolean {
    const text = this.template.render({
      messages: [{ role: "user", content: "Hi" }],
      tools: [PROBE_TOOL],
      addGenerationPrompt: true,
      kwargs: this.kwargs,
    });
    return text.includes(PROBE_TOOL.function.name);
  }

  /** The template's text for transformers-style input (the CLI's `chat render`). */
  render(input: TemplateRenderInput): string {
    return this.template.render({ ...input, kwargs: { ...this.kwargs, ...input.kwargs } });
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  /** The reply's calls in the family's format, or null when this policy's replies are not parsed for calls. */
  parseReply(text: string): ParsedReply | null {
    return this.toolCallFormat ? parseToolCalls(this.toolCallFormat, text) : null;
  }

  /** The calls to hand the environment with a reply (undefined: it reads the text itself). */
  toolCallsOf(text: string): StructuredToolCall[] | undefined {
    const parsed = this.parseReply(text);
    return parsed && parsed.calls.length ? parsed.calls : undefined;
  }

  /** A conversation of an episode as the template's messages (see the file comment). */
  templateMessages(messages: readonly ConversationMessage[], withTools: boolean): TemplateMessage[] {
    return messages.map((m) => {
      if (m.role === "tool") {
        return {
          role: "tool",
          content: m.content,
          ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
          ...(m.name ? { name: m.name } : {}),
        };
      }
      const parsed = m.role === "assistant" && withTools ? this.parseReply(m.content) : null;
      if (!parsed || parsed.calls.length === 0) return { role: m.role, content: m.content };
      return {
        role: "assistant",
        content: parsed.content,
        tool_calls: parsed.calls.map((c, i) => ({
          // the ids readPolicyAction gave the calls (the environment answered by them), unless the model wrote its own
          id: c.id ?? m.toolCalls?.[i]?.id ?? `${toolCallIdPrefix(m.turn)}${i}`,
          type: "function" as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    });
  }

  /** The prompt text of an episode's conversation so far; `tools` only reach the template in "schemas" mode. */
  renderConversation(
    messages: readonly ConversationMessage[],
    opts: { tools?: readonly ToolSchema[]; addGenerationPrompt: boolean },
  ): string {
    const tools = this.toolCallFormat && opts.tools?.length ? opts.tools.map(toTemplateTool) : null;
    const input = this.templateMessages(messages, tools !== null);
    try {
      return this.render({ messages: input, tools, addGenerationPrompt: opts.addGenerationPrompt });
    } catch (e) {
      if (!(e instanceof ChatTemplateError)) throw e;
      // a template may raise on one kind of message only (tool results): say which the conversation held
      const kinds = [...new Set(input.map((m) => (m.tool_calls?.length ? `${m.role} with tool_calls` : m.role)))];
      throw new ChatTemplateError(
        `${e.message.replace(/\.$/, "")} (the conversation held ${kinds.join(", ")} messages${tools ? ` and ${tools.length} tools` : ""}).`,
      );
    }
  }

  /** One line for the pre-flight check and the policy view. */
  describe(): string {
    const stops = this.stopIds.map((id) => `${this.tokenizer.decode([id])} (${id})`).join(", ");
    const tools = this.toolCallFormat
      ? `tools given to the template as schemas, replies read as ${this.toolCallFormat} calls`
      : "tools written into the prompt by the environment";
    return `chat template from ${this.template.origin}; ${tools}; sampling stops on ${stops}`;
  }

  /**
   * The special token right after an assistant reply in the template's own rendering: the token the policy must
   * emit to end its turn. Found by rendering a two-message conversation, so any template's layout is covered.
   */
  private probeEndOfTurn(): { text: string; id: number } {
    const messages: TemplateMessage[] = [
      { role: "user", content: "Hi" },
      { role: "assistant", content: PROBE_REPLY },
    ];
    let text: string;
    try {
      text = this.template.render({ messages, addGenerationPrompt: false, kwargs: this.kwargs });
    } catch (e) {
      throw new ChatTemplateError(`${(e as Error).message.replace(/\.$/, "")} (rendering a user message and a reply).`);
    }
    const at = text.indexOf(PROBE_REPLY);
    const first = at < 0 ? undefined : this.tokenizer.encode(text.slice(at + PROBE_REPLY.length))[0];
    if (first !== undefined && this.tokenizer.isSpecial(first)) return { text: this.tokenizer.decode([first]), id: first };
    throw new ChatTemplateError(
      `The chat template in ${this.template.origin} does not close an assistant reply with a special token, so the end of the policy's turn is unknown.`,
    );
  }
}
