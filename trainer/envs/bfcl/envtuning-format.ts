/**
 * AWorld EnvTuning's response format and feedback texts (`env_tuning/interaction/utils.py`,
 * `execution_manager.py`, `new_multi_turn_fc.py`): every policy message is exactly one `<think>…</think>` plus
 * exactly one of `<tool_call>[JSON calls]</tool_call>` or `<answer>…</answer>`, nothing else outside the tags.
 * Violations are format errors with EnvTuning's own messages, which the policy reads as feedback.
 */
import { pythonJsonDumps } from "../../../lib/python-json";

export type EnvTuningResponse =
  { kind: "answer"; text: string } | { kind: "tool_call"; calls: EnvTuningCall[] } | { kind: "error"; message: string };

const pairs = (text: string, tag: string): string[] =>
  [...text.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => m[1]);

export interface EnvTuningCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** EnvTuning's `parse_tool_calls`: a JSON list (or one object) of {name, arguments}; unusable entries are skipped. */
function callsOf(json: unknown): EnvTuningCall[] {
  const list = Array.isArray(json) ? json : [json];
  return list.flatMap((c) => {
    if (typeof c !== "object" || c === null || Array.isArray(c)) return [];
    const { name, arguments: args } = c as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string" || !name.trim()) return [];
    const keywords = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
    return [{ name: name.trim(), arguments: keywords }];
  });
}

/** Python's reserved words: a call or argument named so is a syntax error to Python's ast. */
const PY_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);
const identifier = (s: string) => /^[A-Za-z_]\w*$/.test(s) && !PY_KEYWORDS.has(s);

/**
 * Whether EnvTuning's `parse_nested_value` fails on an argument: it renders a dict whose values are all dicts as a
 * call named by its first key, so an empty dict (all of its no values are dicts) has no first key to name.
 */
function failsToRender(v: unknown): boolean {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const values = Object.values(v);
  if (values.length === 0) return true;
  const allDicts = values.every((x) => x !== null && typeof x === "object" && !Array.isArray(x));
  return allDicts ? Object.values(values[0] as object).some(failsToRender) : values.some(failsToRender);
}

/**
 * The calls EnvTuning executes from a message's JSON (`parse_tool_calls`, then `default_decode_execute_prompting`,
 * which writes them as Python and reads them back with Python's ast), or null when that round trip fails — no call,
 * a name or argument that is not a Python identifier (`my-func`), an empty dict argument — which ends the turn.
 */
export function decodeEnvTuningCalls(json: unknown): EnvTuningCall[] | null {
  const calls = callsOf(json);
  if (calls.length === 0) return null;
  const readable = calls.every(
    (c) => c.name.split(".").every(identifier) && Object.entries(c.arguments).every(([k, v]) => identifier(k) && !failsToRender(v)),
  );
  return readable ? calls : null;
}

/** An `<answer>` that is itself a JSON call list: EnvTuning executes it like a `<tool_call>` (on a turn with calls due). */
export function callsInAnswer(text: string): EnvTuningCall[] | null {
  try {
    return decodeEnvTuningCalls(JSON.parse(text));
  } catch {
    return null;
  }
}

export function parseEnvTuningResponse(response: string): EnvTuningResponse {
  const text = response.trim();
  const think = pairs(text, "think");
  if (think.length === 0) return { kind: "error", message: "Error: Missing <think></think> tags" };
  if (think.length > 1) return { kind: "error", message: "Error: Multiple <think></think> tag pairs found. Only one pair is allowed." };
  const tool = pairs(text, "tool_call");
  if (tool.length > 1)
    return { kind: "error", message: "Error: Multiple <tool_call></tool_call> tag pairs found. Only one pair is allowed." };
  const answer = pairs(text, "answer");
  if (answer.length > 1) return { kind: "error", message: "Error: Multiple <answer></answer> tag pairs found. Only one pair is allowed." };
  if (tool.length && answer.length) return { kind: "error", message: "Error: Response cannot contain both <tool_call> and <answer> tags" };
  if (!tool.length && !answer.length) return { kind: "error", message: "Error: Response must contain either <tool_call> or <answer> tags" };
  const outside = text
    .replace(/<think>[\s\S]*?<\/think>/g, "")
    .replace(tool.length ? /<tool_call>[\s\S]*?<\/tool_call>/g : /<answer>[\s\S]*?<\/answer>/g, "");
  if (outside.trim() !== "") return { kind: "error", message: "Error: Response must not contain text outside the required XML tags" };
  if (answer.length) return { kind: "answer", text: answer[0].trim() };
  try {
    // A message whose calls Python cannot read back has no calls: the turn ends (`should_continue` false).
    return { kind: "tool_call", calls: decodeEnvTuningCalls(JSON.parse(tool[0].trim())) ?? [] };
  } catch (e) {
    // Python's JSONDecodeError text differs from JavaScript's; the prefix is EnvTuning's.
    return { kind: "error", message: `Error: Invalid JSON inside <tool_call>: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** The user message EnvTuning answers executed calls with (`format_execution_response`). */
export function executionFeedback(results: string[]): string {
  const json = pythonJsonDumps(results, { list: "str" }, { ensureAscii: false });
  return (
    `Here are the function's execution results. Execution results:${json}\n ` +
    "If you believe you have already fulfilled the user's request, please first outline your thought process in a " +
    "<think></think>pair, and then give a brief summary of the result in an <answer></answer> pair. Otherwise, you " +
    "should continue to call until fulfilling user's request."
  );
}

/** Prefixed to the next question when the policy calls a function in a turn whose ground truth is empty. */
export const EMPTY_TURN_CALL_WARNING =
  "(SYSTEM WARNING: You should not call any function in this turn because certain function description(s) or " +
  "parameter(s) is missing in this turn. Previous turn is forced quit. Current function(s) will not be executed.) " +
  "Next turn question:\n";

/** EnvTuning forces the next turn when a turn's attempts exceed this (`max_step_limit`). */
export const ENVTUNING_MAX_STEPS_PER_TURN = 5;

/** How a policy message answers, in EnvTuning's system prompt words (the format the parser above enforces). */
export const ENVTUNING_FORMAT_INSTRUCTIONS = [
  "Answer every message in exactly this format, with nothing outside the tags:",
  "<think>your reasoning</think>",
  'then either <tool_call>[{"name": "function_name", "arguments": {"param": "value"}}]</tool_call> to call one or more functions,',
  "or <answer>a brief summary for the user</answer> once the request is fulfilled (or cannot be fulfilled with the functions given).",
].join("\n");
