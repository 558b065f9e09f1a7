/**
 * agent_gym's last resort for a service call that no recording answers: an LLM invents plausible results for the
 * method, shown the method's slots and a few recordings of it. Offline (no tool-simulator endpoint) it answers with
 * the method's first recording, agent_gym's "any call of the same method" fallback, or an error when there is
 * none. Replies must be a JSON list of result rows (or {"results": [...]}); anything else is a tool error the
 * policy sees, never a silent empty result.
 */
import type { LlmChat } from "../types";
import type { SgdIntent } from "./sgd-format";
import type { RecordedCall } from "./sgd-task";

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
  const list = Array.isArray(parsed)
    ? parsed
    : typeof parsed === "object" && parsed !== null && Array.isArray((parsed as { results?: unknown }).results)
      ? (parsed as { results: unknown[] }).results
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
    offline: () =>
      call.examples[0]
        ? JSON.stringify(call.examples[0].results)
        : JSON.stringify({ error: `no recording of ${call.intent.name} to answer from` }),
  });
  const rows = rowsOf(res.text);
  if (rows === null)
    return { ok: false, error: `the LLM mocker's reply is not a list of result rows: ${res.text.slice(0, 200)}`, callId: res.callId };
  return { ok: true, results: rows, callId: res.callId };
}
