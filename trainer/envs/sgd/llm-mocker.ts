/**
 * agent_gym's LLM mocker, asked for a service call no recording matches by ≥ 0.8 (tool-mocker.ts): an LLM invents
 * plausible results for the method, shown the method's slots and a few recordings of it, and the call's values are
 * written into the rows that have those slots (as agent_gym's `_generate_with_llm` does). Replies must be a JSON list
 * of result rows, `{"results": [...]}` or one row; a reply that is none of these is recorded as a failed call and,
 * as in agent_gym, the recordings answer instead. Offline (no tool-simulator endpoint) it invents nothing, as
 * agent_gym's does without an API key: its lower fuzzy stage and the method's first recording answer.
 */
import type { LlmChat } from "../types";
import type { SgdIntent } from "./sgd-format";
import type { RecordedCall } from "./sgd-task";
import { pythonStr } from "../../../lib/python-values";

export type LlmMockResult = { ok: true; results: Record<string, string>[]; callId: string } | { ok: false; error: string; callId: string };

function mockerPrompt(service: string, intent: SgdIntent, args: Record<string, unknown>, examples: RecordedCall[]): string {
  const shown =
    examples.map((e) => `${JSON.stringify(e.parameters)} -> ${JSON.stringify(e.results.slice(0, 3))}`).join("\n") || "(none recorded)";
  return [
    `You stand in for the ${service} service's ${intent.name} method${intent.description ? ` (${intent.description})` : ""}, which has no recorded answer for this call.`,
    `Required parameters: ${intent.requiredSlots.join(", ") || "(none)"}. Optional: ${Object.keys(intent.optionalSlots).join(", ") || "(none)"}.`,
    `Each result row has the slots: ${intent.resultSlots.join(", ") || "(as in the recordings)"}.`,
    `Recorded calls of this method (parameters -> results):\n${shown}`,
    `The call: ${JSON.stringify(args)}`,
    intent.isTransactional
      ? "Reply with only a JSON list holding the one row this transaction returns, with every value a string."
      : "Reply with only a JSON list of the rows this search returns (0 to 5), with every value a string.",
  ].join("\n\n");
}

function rowsOf(text: string): Record<string, string>[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^```(?:json)?|```$/g, "").trim());
  } catch {
    return null;
  }
  const isObject = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  const list = Array.isArray(parsed)
    ? parsed
    : isObject && Array.isArray((parsed as { results?: unknown }).results)
      ? (parsed as { results: unknown[] }).results
      : isObject
        ? [parsed]
        : null;
  if (!list || !list.every((r) => typeof r === "object" && r !== null && !Array.isArray(r))) return null;
  return list.map((r) => Object.fromEntries(Object.entries(r as Record<string, unknown>).map(([k, v]) => [k, String(v)])));
}

export async function llmMock(
  llm: LlmChat,
  turn: number,
  call: { service: string; intent: SgdIntent; args: Record<string, unknown>; examples: RecordedCall[] },
): Promise<LlmMockResult> {
  const res = await llm.chat({
    role: "tool_simulator",
    turn,
    responseFormat: "json",
    messages: [{ role: "user", content: mockerPrompt(call.service, call.intent, call.args, call.examples) }],
    offline: () => "[]",
    validate: (text) => (rowsOf(text) ? null : "the LLM mocker's reply is not a list of result rows"),
  });
  const rows = rowsOf(res.text);
  if (rows === null)
    return { ok: false, error: `the LLM mocker's reply is not a list of result rows: ${res.text.slice(0, 200)}`, callId: res.callId };
  return { ok: true, results: rows.map((row) => withCallValues(row, call.args)), callId: res.callId };
}

/** agent_gym writes the call's own values into the invented rows, for every slot a row has (underscores aside). */
function withCallValues(row: Record<string, string>, args: Record<string, unknown>): Record<string, string> {
  const out = { ...row };
  const bare = (k: string) => k.replace(/_/g, "");
  for (const [key, value] of Object.entries(args)) {
    if (key in out || Object.keys(out).some((k) => bare(k) === bare(key))) out[key] = pythonStr(value);
  }
  return out;
}
