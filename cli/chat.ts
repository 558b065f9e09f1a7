/**
 * `rollout-lab chat render --model DIR` and `rollout-lab chat parse --model DIR`: a checkpoint's chat template,
 * tokenizer and tool-call parser exactly as a run uses them (trainer/policy/chat), for checking what a policy is fed
 * and how its replies are read before training on it. A folder holding only tokenizer.json, tokenizer_config.json
 * (with the chat template, or a chat_template.jinja beside it) and, optionally, generation_config.json is enough.
 *
 *   render  reads {"messages": [...], "tools"?: [...], "add_generation_prompt"?: bool, "template_kwargs"?: {...}}
 *           (one JSON document, or JSON Lines: one output line per conversation) and prints {"text", "ids"}
 *   parse   reads a reply's text and prints {"content", "tool_calls": [{"name", "arguments"}]}
 */
import { TokenizerError } from "../lib/tokenizer/types";
import { TOOL_CALL_PARSERS } from "../lib/run-config";
import type { ChatFormat } from "../trainer/policy/chat/chat-format";
import { loadChatFormat, type ChatFormatSettings } from "../trainer/policy/chat/load-chat-format";
import { ChatTemplateError, type TemplateMessage, type TemplateTool } from "../trainer/policy/chat/template";
import { DataPathError } from "../trainer/data-roots";
import { CliError, EXIT } from "./exit-codes";

export interface ChatCommandOptions {
  model: string | undefined;
  /** The input's text (the file named by --input, or stdin). */
  input: string;
  toolCallParser?: string;
}

const PARSER_CHOICES = ["auto", ...TOOL_CALL_PARSERS, "none"] as const;

async function chatOf(opts: ChatCommandOptions): Promise<ChatFormat> {
  if (!opts.model)
    throw new CliError(EXIT.USAGE, "chat render / parse need --model DIR (a model folder, or one holding its tokenizer files).");
  const parser = opts.toolCallParser ?? "auto";
  if (!(PARSER_CHOICES as readonly string[]).includes(parser))
    throw new CliError(EXIT.USAGE, `--tool-call-parser must be one of ${PARSER_CHOICES.join(", ")}, got "${parser}".`);
  const settings: ChatFormatSettings = { toolCallParser: parser as ChatFormatSettings["toolCallParser"] };
  try {
    return await loadChatFormat(opts.model, settings, { requireTemplate: true });
  } catch (e) {
    throw asCliError(e);
  }
}

/** Template, tokenizer and file errors are one sentence about the folder (exit 3); anything else is unexpected. */
function asCliError(e: unknown): unknown {
  if (e instanceof ChatTemplateError || e instanceof TokenizerError || e instanceof DataPathError)
    return new CliError(EXIT.BAD_CONFIG, e.message);
  return e;
}

/** One JSON document, else JSON Lines (blank lines skipped); errors name the line. */
function readDocuments(input: string): { docs: unknown[]; lines: boolean } {
  try {
    return { docs: [JSON.parse(input)], lines: false };
  } catch {
    const docs: unknown[] = [];
    input.split("\n").forEach((line, i) => {
      if (!line.trim()) return;
      try {
        docs.push(JSON.parse(line));
      } catch {
        throw new CliError(EXIT.BAD_CONFIG, `The input is neither one JSON document nor JSON Lines: line ${i + 1} is not valid JSON.`);
      }
    });
    if (docs.length === 0) throw new CliError(EXIT.BAD_CONFIG, 'The input is empty: give a JSON object with "messages".');
    return { docs, lines: true };
  }
}

const asTool = (t: unknown): TemplateTool =>
  t && typeof t === "object" && (t as { type?: unknown }).type === "function"
    ? (t as TemplateTool)
    : { type: "function", function: t as TemplateTool["function"] };

/**
 * What the template left out of its text: tools given, or assistant tool_calls, whose function names it never wrote
 * (a template without tool support drops both silently; a run hands such a template's tools to the environment's
 * prompt and says so, and the CLI must not be quieter).
 */
function droppedToolsNote(chat: ChatFormat, text: string, messages: TemplateMessage[], tools: TemplateTool[]): string | null {
  const missing = (name: unknown) => typeof name === "string" && name !== "" && !text.includes(name);
  const droppedTools = tools.filter((t) => missing(t.function?.name)).length;
  const droppedCalls = messages.filter((m) => Array.isArray(m.tool_calls) && m.tool_calls.some((c) => missing(c?.function?.name))).length;
  if (droppedTools === 0 && droppedCalls === 0) return null;
  const parts = [
    droppedTools ? `${droppedTools} of the ${tools.length} tools` : "",
    droppedCalls ? `the tool_calls of ${droppedCalls} assistant message${droppedCalls === 1 ? "" : "s"}` : "",
  ].filter(Boolean);
  return `The chat template in ${chat.template.origin} does not render them: ${parts.join(" and ")} were dropped from the text (a run gives this template's tools to the environment's prompt instead).`;
}

function renderOne(chat: ChatFormat, doc: unknown, where: string, warn: (line: string) => void): { text: string; ids: number[] } {
  const d = doc as { messages?: unknown; tools?: unknown; add_generation_prompt?: unknown; template_kwargs?: unknown };
  if (!d || typeof d !== "object" || !Array.isArray(d.messages))
    throw new CliError(EXIT.BAD_CONFIG, `${where} has no "messages" list (expected {"messages": [{"role": ..., "content": ...}], ...}).`);
  if (d.tools !== undefined && d.tools !== null && !Array.isArray(d.tools))
    throw new CliError(EXIT.BAD_CONFIG, `${where}: "tools" must be a list.`);
  const kwargs = d.template_kwargs;
  if (kwargs !== undefined && (typeof kwargs !== "object" || kwargs === null || Array.isArray(kwargs)))
    throw new CliError(EXIT.BAD_CONFIG, `${where}: "template_kwargs" must be an object.`);
  try {
    const messages = d.messages as TemplateMessage[];
    const tools = Array.isArray(d.tools) ? d.tools.map(asTool) : [];
    const text = chat.render({
      messages,
      tools: tools.length ? tools : null,
      addGenerationPrompt: d.add_generation_prompt === true,
      kwargs: kwargs as Record<string, unknown> | undefined,
    });
    const note = droppedToolsNote(chat, text, messages, tools);
    if (note) warn(`${where}: ${note}`);
    return { text, ids: chat.encode(text) };
  } catch (e) {
    const err = asCliError(e);
    if (err instanceof CliError) throw new CliError(err.exitCode, `${where}: ${err.message}`);
    throw err;
  }
}

export async function chatRender(
  opts: ChatCommandOptions,
  out: (line: string) => void,
  err: (line: string) => void = () => {},
): Promise<void> {
  const chat = await chatOf(opts);
  const { docs, lines } = readDocuments(opts.input);
  docs.forEach((doc, i) => out(JSON.stringify(renderOne(chat, doc, lines ? `line ${i + 1}` : "the input", err))));
}

export async function chatParse(opts: ChatCommandOptions, out: (line: string) => void, err: (line: string) => void): Promise<void> {
  const chat = await chatOf(opts);
  const parsed = chat.parseReply(opts.input);
  if (!parsed) err(`The chat template in ${chat.template.origin} renders no tools, so replies are not read for calls.`);
  if (parsed?.malformed) err(`The reply's call markup does not parse (${parsed.malformed}); an environment reads it as text.`);
  out(
    JSON.stringify({
      content: parsed ? parsed.content : opts.input,
      tool_calls: (parsed?.calls ?? []).map((c) => ({ name: c.name, arguments: c.arguments })),
    }),
  );
}
