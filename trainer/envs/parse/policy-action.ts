/**
 * Parses one policy message into the action it expresses. Two families of formats are accepted because the
 * research systems we unify disagree: Simia-RL / tau-bench / BFCL policies emit JSON function calls (bare, in a
 * ```json fence, or inside Qwen/Hermes `<tool_call>` tags), while UserRL gyms and Agent Gym use bracketed text
 * (`[action] ...`, `[search] ...`, `[answer] ...`, `[finish]`). A malformed call never throws: it comes back as a
 * structured `ParseError` that the environment shows to the policy as an "environment" observation.
 */
import type { ToolCall } from "../../../lib/conversation";

export type PolicyAction =
  /** One or more function calls; `text` is any prose outside the calls (e.g. "Let me check."). */
  | { kind: "tool_calls"; calls: ToolCall[]; text: string }
  /** `[action] ...` — free text for gym environments; `call` is set when the content is `name({...})`/`name {...}`. */
  | { kind: "action"; content: string; call?: ToolCall }
  | { kind: "search"; query: string }
  | { kind: "answer"; answer: string }
  | { kind: "finish"; text: string }
  /** Plain text addressed to the user. */
  | { kind: "message"; text: string };

export type ParseErrorCode =
  | "empty" // nothing left after stripping <think> blocks and whitespace
  | "invalid_json" // a call was attempted but its JSON does not parse
  | "missing_name" // JSON parsed but has no function name
  | "bad_arguments" // arguments are not an object (or a JSON string of one)
  | "empty_bracket"; // e.g. "[action]" with nothing after it

export interface ParseError {
  code: ParseErrorCode;
  /** Human-readable, addressed to the policy (it is shown to it as an observation). */
  message: string;
  /** The offending fragment (truncated), for the inspector. */
  snippet: string;
}

export type ParseResult = { ok: true; action: PolicyAction } | { ok: false; error: ParseError };

/**
 * Call-id prefix for a policy turn. Environments pass it as `idPrefix` so that the ids on their tool observations
 * match what the episode runner derives when it attaches `toolCalls` to the policy message.
 */
export function toolCallIdPrefix(turn: number): string {
  return `t${turn}_call_`;
}

export interface ParseOptions {
  /** Prefix for generated call ids; ids are `${prefix}${index}` so a re-parse yields the same ids. */
  idPrefix?: string;
}

const THINK_BLOCK = /<think>[\s\S]*?<\/think>/gi;
const TOOL_CALL_TAG = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/gi;
const JSON_FENCE = /```(?:json|tool_call|tool_code)?\s*\n?([\s\S]*?)```/gi;
const BRACKET = /^\s*\[(action|search|answer|finish)\]\s*([\s\S]*)$/i;

function snippetOf(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function fail(code: ParseErrorCode, message: string, fragment: string): ParseResult {
  return { ok: false, error: { code, message, snippet: snippetOf(fragment) } };
}

type CallOrError = { call: ToolCall } | { error: ParseError };

/** Accepts the shapes models actually emit: {name, arguments}, {name, parameters}, {function: {name, arguments}}. */
function toToolCall(value: unknown, id: string, fragment: string): CallOrError {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: { code: "missing_name", message: 'A tool call must be a JSON object with a "name".', snippet: snippetOf(fragment) } };
  }
  const obj = value as Record<string, unknown>;
  const fn = typeof obj.function === "object" && obj.function !== null ? (obj.function as Record<string, unknown>) : obj;
  const name = fn.name ?? obj.tool ?? obj.action;
  if (typeof name !== "string" || name.trim() === "") {
    return {
      error: {
        code: "missing_name",
        message: 'The tool call has no "name" field naming the function to call.',
        snippet: snippetOf(fragment),
      },
    };
  }
  let args: unknown = fn.arguments ?? fn.parameters ?? fn.args ?? obj.arguments ?? obj.parameters ?? {};
  // OpenAI's wire format carries arguments as a JSON-encoded string.
  if (typeof args === "string") {
    try {
      args = args.trim() === "" ? {} : JSON.parse(args);
    } catch {
      return {
        error: {
          code: "bad_arguments",
          message: `The arguments of "${name}" are a string that is not valid JSON.`,
          snippet: snippetOf(fragment),
        },
      };
    }
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { error: { code: "bad_arguments", message: `The arguments of "${name}" must be a JSON object.`, snippet: snippetOf(fragment) } };
  }
  // Keep a model-supplied id so tool results can reference it; otherwise use the generated one.
  const callId = typeof obj.id === "string" && obj.id !== "" ? obj.id : id;
  return { call: { id: callId, name: name.trim(), arguments: args as Record<string, unknown> } };
}

function parseJsonCalls(json: string, fragment: string, nextId: () => string): { calls: ToolCall[] } | { error: ParseError } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return { error: { code: "invalid_json", message: `The tool call is not valid JSON (${detail}).`, snippet: snippetOf(fragment) } };
  }
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) {
    return { error: { code: "missing_name", message: "The tool-call list is empty.", snippet: snippetOf(fragment) } };
  }
  const calls: ToolCall[] = [];
  for (const item of items) {
    const r = toToolCall(item, nextId(), fragment);
    if ("error" in r) return r;
    calls.push(r.call);
  }
  return { calls };
}

/** `name({...})`, `name {...}` or `name(key="v", n=2)` — the call syntaxes seen inside `[action]`. */
function parseInlineCall(content: string, id: string): ToolCall | undefined {
  const m = /^([A-Za-z_][\w.-]*)\s*(?:\(([\s\S]*)\)|(\{[\s\S]*\}))\s*$/.exec(content.trim());
  if (!m) return undefined;
  const name = m[1];
  const inner = (m[2] ?? m[3] ?? "").trim();
  if (inner === "") return { id, name, arguments: {} };
  if (inner.startsWith("{")) {
    try {
      const args: unknown = JSON.parse(inner);
      if (typeof args === "object" && args !== null && !Array.isArray(args)) {
        return { id, name, arguments: args as Record<string, unknown> };
      }
    } catch {
      return undefined;
    }
    return undefined;
  }
  const args: Record<string, unknown> = {};
  const kv = /([A-Za-z_]\w*)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,]+)\s*(?:,|$)/g;
  let consumed = 0;
  for (let km = kv.exec(inner); km; km = kv.exec(inner)) {
    const raw = km[2].trim();
    let v: unknown = raw;
    if (raw.startsWith("'")) v = raw.slice(1, -1);
    else {
      try {
        v = JSON.parse(raw);
      } catch {
        v = raw;
      }
    }
    args[km[1]] = v;
    consumed += km[0].length;
  }
  return consumed > 0 ? { id, name, arguments: args } : undefined;
}

export function parsePolicyAction(rawText: string, options: ParseOptions = {}): ParseResult {
  const prefix = options.idPrefix ?? "call_";
  let counter = 0;
  const nextId = (): string => `${prefix}${counter++}`;
  const text = rawText.replace(THINK_BLOCK, "").trim();
  if (text === "") return fail("empty", "Your message was empty. Reply to the user or call a tool.", rawText);

  // Hermes/Qwen tags: every <tool_call> block is one call (or a list); an unclosed last tag is still attempted.
  const tagged = [...text.matchAll(TOOL_CALL_TAG)];
  if (tagged.length > 0) {
    const calls: ToolCall[] = [];
    for (const m of tagged) {
      const body = stripFence(m[1].trim());
      const r = parseJsonCalls(body, m[0], nextId);
      if ("error" in r) return { ok: false, error: r.error };
      calls.push(...r.calls);
    }
    return { ok: true, action: { kind: "tool_calls", calls, text: text.replace(TOOL_CALL_TAG, "").trim() } };
  }

  const bracket = BRACKET.exec(text);
  if (bracket) {
    const tag = bracket[1].toLowerCase();
    const content = bracket[2].trim();
    if (tag === "finish") return { ok: true, action: { kind: "finish", text: content } };
    if (content === "") return fail("empty_bracket", `"[${tag}]" must be followed by its content on the same message.`, text);
    if (tag === "search") return { ok: true, action: { kind: "search", query: content } };
    if (tag === "answer") return { ok: true, action: { kind: "answer", answer: content } };
    const call =
      content.startsWith("{") || content.startsWith("[") ? jsonCallOrUndefined(content, nextId) : parseInlineCall(content, nextId());
    return { ok: true, action: call ? { kind: "action", content, call } : { kind: "action", content } };
  }

  const fences = [...text.matchAll(JSON_FENCE)];
  const callFences = fences.filter((m) => looksLikeCall(m[1]));
  if (callFences.length > 0) {
    const calls: ToolCall[] = [];
    for (const m of callFences) {
      const r = parseJsonCalls(m[1].trim(), m[0], nextId);
      if ("error" in r) return { ok: false, error: r.error };
      calls.push(...r.calls);
    }
    let prose = text;
    for (const m of callFences) prose = prose.replace(m[0], "");
    return { ok: true, action: { kind: "tool_calls", calls, text: prose.trim() } };
  }

  if (text.startsWith("{") || (text.startsWith("[") && looksLikeCall(text))) {
    const r = parseJsonCalls(text, text, nextId);
    if ("error" in r) return { ok: false, error: r.error };
    return { ok: true, action: { kind: "tool_calls", calls: r.calls, text: "" } };
  }

  return { ok: true, action: { kind: "message", text } };
}

/**
 * A function call handed over as data rather than written in the reply's text: an OpenAI `tool_calls` entry (its
 * `arguments` a JSON string, possibly malformed), an OpenEnv action's `tool_calls`, or a checkpoint's reply already
 * read by its model family's parser. `id` is kept when given, since the caller may have to answer it by that id.
 */
export interface StructuredToolCall {
  id?: string;
  name: string;
  /** An object, or the JSON text of one (OpenAI's wire format). */
  arguments: unknown;
}

/**
 * The action of a policy reply whose calls may arrive structured. With `toolCalls`, they are the action (validated
 * like calls parsed from text, so a malformed one is the same ParseError an environment already shows) and the
 * text, minus reasoning and call markup, is the prose beside them; without, the text is parsed as before.
 */
export function readPolicyAction(
  rawText: string,
  toolCalls: readonly StructuredToolCall[] | undefined,
  options: ParseOptions = {},
): ParseResult {
  if (!toolCalls || toolCalls.length === 0) return parsePolicyAction(rawText, options);
  const prefix = options.idPrefix ?? "call_";
  const calls: ToolCall[] = [];
  for (const [i, structured] of toolCalls.entries()) {
    const r = toToolCall(structured, `${prefix}${i}`, JSON.stringify(structured) ?? "");
    if ("error" in r) return { ok: false, error: r.error };
    calls.push(r.call);
  }
  const prose = rawText.replace(THINK_BLOCK, "").replace(TOOL_CALL_TAG, "").trim();
  return { ok: true, action: { kind: "tool_calls", calls, text: prose } };
}

function stripFence(body: string): string {
  const m = /^```(?:json)?\s*\n?([\s\S]*?)```$/.exec(body);
  return m ? m[1].trim() : body;
}

/** A fence is treated as a call only when it mentions a name key — a fenced JSON example in prose is just prose. */
function looksLikeCall(body: string): boolean {
  return /"(name|function|tool)"\s*:/.test(body) || /^\s*\{\s*"?name/.test(body);
}

function jsonCallOrUndefined(content: string, nextId: () => string): ToolCall | undefined {
  const r = parseJsonCalls(content, content, nextId);
  return "calls" in r && r.calls.length === 1 ? r.calls[0] : undefined;
}
