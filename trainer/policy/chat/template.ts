/**
 * A chat template run the way transformers runs it: the Jinja source from a checkpoint's tokenizer_config.json
 * (`chat_template`, a string or a list of named templates) or chat_template.jinja, rendered by @huggingface/jinja
 * (the engine transformers.js uses) with transformers' variables: `messages`, `tools` (OpenAI function schemas, or
 * None), `add_generation_prompt`, the tokenizer's special tokens (`bos_token`, `eos_token`, …) and the caller's
 * template kwargs (Qwen3's `enable_thinking`, Llama 3.1's `date_string`, …). `raise_exception` and `strftime_now`
 * are the engine's own, as in transformers.
 */
import { Template } from "@huggingface/jinja";
import { installPythonConcatenation } from "./python-concat";

installPythonConcatenation();

export class ChatTemplateError extends Error {
  readonly code = "CHAT_TEMPLATE_INVALID";
  constructor(message: string) {
    super(message);
    this.name = "ChatTemplateError";
  }
}

/** A message as transformers' apply_chat_template takes it (OpenAI's chat format). */
export interface TemplateMessage {
  role: string;
  content: string | null;
  tool_calls?: TemplateToolCall[];
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}

export interface TemplateToolCall {
  id?: string;
  type: "function";
  function: { name: string; arguments: unknown };
}

/** An OpenAI-style tool, as transformers passes a JSON schema to the template. */
export interface TemplateTool {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown };
}

export interface TemplateRenderInput {
  messages: TemplateMessage[];
  tools?: TemplateTool[] | null;
  addGenerationPrompt?: boolean;
  kwargs?: Record<string, unknown>;
}

/** tokenizer_config.json's special-token variables transformers passes to every template. */
export const SPECIAL_TOKEN_KEYS = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"] as const;

function compile(source: string, origin: string): Template {
  try {
    return new Template(source);
  } catch (e) {
    throw new ChatTemplateError(`The chat template in ${origin} cannot be parsed: ${(e as Error).message}.`);
  }
}

export class ChatTemplate {
  /** Every template's text (the tool-call format is recognised from it). */
  readonly source: string;
  private readonly main: Template;
  /** transformers' named templates: "tool_use" is chosen when tools are given and it exists. */
  private readonly toolUse: Template | null;

  /**
   * `source`: the template text, or tokenizer_config.json's list of {name, template}. `origin` says where it came
   * from in every error. `specials`: the special-token variables (only those the tokenizer defines).
   */
  constructor(
    source: string | { name: string; template: string }[],
    readonly origin: string,
    private readonly specials: Record<string, string> = {},
  ) {
    if (typeof source === "string") {
      this.source = source;
      this.main = compile(source, origin);
      this.toolUse = null;
      return;
    }
    const named = new Map(source.map((t) => [t.name, t.template]));
    const main = named.get("default");
    if (main === undefined) {
      throw new ChatTemplateError(`The chat templates in ${origin} have no "default" one (names: ${[...named.keys()].join(", ")}).`);
    }
    this.source = [...named.values()].join("\n");
    this.main = compile(main, origin);
    const toolUse = named.get("tool_use");
    this.toolUse = toolUse === undefined ? null : compile(toolUse, `${origin} (tool_use)`);
  }

  render(input: TemplateRenderInput): string {
    const tools = input.tools && input.tools.length ? input.tools : null;
    const template = tools && this.toolUse ? this.toolUse : this.main;
    try {
      return template.render({
        ...this.specials,
        ...input.kwargs,
        messages: input.messages,
        tools,
        add_generation_prompt: input.addGenerationPrompt ?? false,
      });
    } catch (e) {
      throw new ChatTemplateError(`The chat template in ${this.origin} failed to render: ${(e as Error).message}.`);
    }
  }
}
