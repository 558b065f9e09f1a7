/**
 * Reading a model family's tool calls out of a reply, as the tool parsers of an OpenAI-compatible server (vLLM's
 * `--tool-call-parser`) do, so the environment gets calls as data and the template gets them back as `tool_calls`:
 *
 *   hermes       Qwen2.5, Qwen3, Hermes: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>` per call, read
 *                only after a `</think>` (Qwen3's reasoning is not parsed for calls);
 *                the content is the text before the first call less the one newline Qwen's templates write
 *                between content and calls, so rendering it back gives the text sampled.
 *   llama3_json  Llama 3.1 / 3.2: the reply is the call, `{"name": …, "parameters": {…}}` (after an optional
 *                <|python_tag|>), several separated by ";"; no content beside calls.
 *   mistral      `[TOOL_CALLS] [{"name": …, "arguments": {…}, "id": …}, …]` (v3 tokenizers), or
 *                `[TOOL_CALLS]name[ARGS]{…}` (v11); the content is the text before [TOOL_CALLS].
 *
 * A reply whose call markup does not parse comes back with `malformed` set and no calls: the policy then hands the
 * environment its text alone, and the environment's own reader reports the format error to the policy.
 */

import { TOOL_CALL_PARSERS } from "../../../lib/run-config";

export type ToolCallFormat = (typeof TOOL_CALL_PARSERS)[number];

export interface ParsedCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ParsedReply {
  content: string;
  calls: ParsedCall[];
  /** Why the call markup could not be read (no calls are returned then). */
  malformed?: string;
}

/** The format a chat template writes calls in, from its text (null when it writes none Rollout Lab reads). */
export function detectToolCallFormat(templateSource: string): ToolCallFormat | null {
  if (templateSource.includes("<tool_call>")) return "hermes";
  if (templateSource.includes("[TOOL_CALLS]")) return "mistral";
  if (/"parameters"/.test(templateSource) && /ipython|<\|python_tag\|>/.test(templateSource)) return "llama3_json";
  return null;
}

type CallOrWhy = { call: ParsedCall } | { why: string };

/** {name, arguments|parameters, id?} with arguments an object (or the JSON text of one). */
function callOf(value: unknown, argumentKeys: readonly string[]): CallOrWhy {
  if (!value || typeof value !== "object" || Array.isArray(value)) return { why: "a call is not a JSON object" };
  const obj = value as Record<string, unknown>;
  if (typeof obj.name !== "string" || obj.name === "") return { why: 'a call has no "name"' };
  const key = argumentKeys.find((k) => k in obj);
  let args: unknown = key === undefined ? {} : obj[key];
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return { why: `the arguments of "${obj.name}" are a string that is not JSON` };
    }
  }
  if (!args || typeof args !== "object" || Array.isArray(args)) return { why: `the arguments of "${obj.name}" are not an object` };
  return { call: { ...(typeof obj.id === "string" ? { id: obj.id } : {}), name: obj.name, arguments: args as Record<string, unknown> } };
}

function parseJson(text: string): { value: unknown } | { why: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { why: `not valid JSON (${(e as Error).message.split("\n")[0]})` };
  }
}

function collect(values: unknown[], argumentKeys: readonly string[], content: string, text: string): ParsedReply {
  const calls: ParsedCall[] = [];
  for (const v of values) {
    const r = callOf(v, argumentKeys);
    if ("why" in r) return { content: text, calls: [], malformed: r.why };
    calls.push(r.call);
  }
  return { content, calls };
}

const HERMES_CALL = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;

/**
 * Where calls may start: after the reasoning. A `<tool_call>` a thinking model (Qwen3) writes inside `<think>` is
 * thought, not a call — vLLM's reasoning parser hands the tool parser only the text after `</think>`. A reply whose
 * `<think>` never closes is all reasoning (as vLLM's DeepSeek-R1 parser reads it): no call is executed.
 */
function afterReasoning(text: string): number | null {
  const end = text.indexOf("</think>");
  if (end >= 0) return end + "</think>".length;
  return text.includes("<think>") ? null : 0;
}

function parseHermes(text: string): ParsedReply {
  const from = afterReasoning(text);
  if (from === null) return { content: text, calls: [] };
  const blocks = [...text.slice(from).matchAll(HERMES_CALL)].map((b) => Object.assign(b, { index: (b.index ?? 0) + from }));
  if (blocks.length === 0) return { content: text, calls: [] };
  const values: unknown[] = [];
  for (const b of blocks) {
    const json = parseJson(b[1].trim());
    if ("why" in json) return { content: text, calls: [], malformed: `a <tool_call> block is ${json.why}` };
    values.push(json.value);
  }
  const before = text.slice(0, blocks[0].index);
  return collect(values, ["arguments", "parameters"], before.endsWith("\n") ? before.slice(0, -1) : before, text);
}

/** Consecutive JSON objects separated by whitespace or ";" (Llama 3's parallel calls). */
function splitJsonObjects(text: string): string[] | null {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{") {
      if (depth++ === 0) start = i;
    } else if (c === "}") {
      if (--depth === 0) out.push(text.slice(start, i + 1));
      if (depth < 0) return null;
    } else if (depth === 0 && !/[\s;]/.test(c)) return null;
  }
  return depth === 0 ? out : null;
}

function parseLlama3Json(text: string): ParsedReply {
  const body = text
    .trim()
    .replace(/^<\|python_tag\|>/, "")
    .trim();
  if (!body.startsWith("{")) return { content: text, calls: [] };
  const objects = splitJsonObjects(body);
  if (!objects) return { content: text, calls: [], malformed: "the call is not valid JSON" };
  const values: unknown[] = [];
  for (const o of objects) {
    const json = parseJson(o);
    if ("why" in json) return { content: text, calls: [], malformed: `the call is ${json.why}` };
    values.push(json.value);
  }
  return collect(values, ["parameters", "arguments"], "", text);
}

const MISTRAL_V11_CALL = /([A-Za-z0-9_.-]+)\[ARGS\]/g;

function parseMistral(text: string): ParsedReply {
  const at = text.indexOf("[TOOL_CALLS]");
  if (at < 0) return { content: text, calls: [] };
  const content = text.slice(0, at).trim();
  const rest = text
    .slice(at + "[TOOL_CALLS]".length)
    .replace(/<\/s>\s*$/, "")
    .trim();
  if (rest.startsWith("[")) {
    const json = parseJson(rest);
    if ("why" in json) return { content: text, calls: [], malformed: `the [TOOL_CALLS] list is ${json.why}` };
    if (!Array.isArray(json.value)) return { content: text, calls: [], malformed: "[TOOL_CALLS] is not followed by a list" };
    return collect(json.value, ["arguments", "parameters"], content, text);
  }
  // v11: name[ARGS]{json} repeated, each call's JSON running to the next name[ARGS]
  const heads = [...rest.matchAll(MISTRAL_V11_CALL)];
  if (heads.length === 0 || heads[0].index !== 0) return { content: text, calls: [], malformed: "[TOOL_CALLS] is not followed by a call" };
  const values: unknown[] = [];
  for (const [i, h] of heads.entries()) {
    const argsText = rest.slice((h.index ?? 0) + h[0].length, heads[i + 1]?.index ?? rest.length).trim();
    const json = parseJson(argsText);
    if ("why" in json) return { content: text, calls: [], malformed: `the arguments of "${h[1]}" are ${json.why}` };
    values.push({ name: h[1], arguments: json.value });
  }
  return collect(values, ["arguments"], content, text);
}

const PARSERS: Record<ToolCallFormat, (text: string) => ParsedReply> = {
  hermes: parseHermes,
  llama3_json: parseLlama3Json,
  mistral: parseMistral,
};

export function parseToolCalls(format: ToolCallFormat, text: string): ParsedReply {
  return PARSERS[format](text);
}
