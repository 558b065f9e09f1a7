/**
 * τ²-bench's reward (tau2 `evaluator/`): each component is 1 or 0 and the task reward is the product of the
 * components named in its `reward_basis`.
 * - DB: the final database equals the database obtained by replaying the gold actions on a fresh copy.
 * - COMMUNICATE: every `communicate_info` string appears (case-insensitive, commas removed) in an agent message.
 * - ACTION: every gold action is matched by some agent tool call (same name, same compared arguments).
 * - ENV_ASSERTION: the domain's assertion functions (e.g. mock's assert_task_status) hold on the final database.
 * - NL_ASSERTION: an LLM judge checks each natural-language assertion against the agent's messages. With no judge
 *   endpoint (offline) nothing can read them, as τ²'s own evaluator cannot without an LLM: the episode is unscorable
 *   (null), never passed. A judge reply that cannot be parsed makes it unscorable too, never 0.
 * Every computed component is reported, whether or not it is in the basis.
 */
import type { EpisodeEndReason, ToolCall } from "../../../lib/conversation";
import { NOT_SCORABLE_OFFLINE } from "../../../lib/unscored-cause";
import type { Evaluation, LlmChat } from "../types";
import type { Tau2Action, Tau2TaskData } from "./tau2-format";
import type { DbComparison } from "./domain";

export interface Tau2Trace {
  toolCalls: Pick<ToolCall, "name" | "arguments">[];
  agentMessages: string[];
}

/** Python's `==` on JSON values: dicts by key set and values, lists in order, True == 1, 1 == 1.0. */
function pythonEquals(a: unknown, b: unknown): boolean {
  const num = (v: unknown) => (typeof v === "boolean" ? Number(v) : v);
  if ((typeof a === "number" || typeof a === "boolean") && (typeof b === "number" || typeof b === "boolean")) return num(a) === num(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pythonEquals(x, b[i]));
  }
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const ka = Object.keys(a);
    const rb = b as Record<string, unknown>;
    return ka.length === Object.keys(rb).length && ka.every((k) => k in rb && pythonEquals((a as Record<string, unknown>)[k], rb[k]));
  }
  return a === b || (a == null && b == null);
}

/**
 * τ²'s `Action.compare_with_tool_call`: same tool name, and the call's arguments restricted to the compared names
 * equal the gold arguments restricted to the same names. Without `compare_args` the compared names are the
 * *call's* own arguments, so a call that leaves out a gold argument still matches, and one that adds an argument
 * does not.
 */
export function actionMatches(gold: Tau2Action, call: Pick<ToolCall, "name" | "arguments">): boolean {
  if (gold.name !== call.name) return false;
  const compared = gold.compareArgs ?? Object.keys(call.arguments);
  if (compared.length === 0) return true;
  const restrict = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([k]) => compared.includes(k)));
  return pythonEquals(restrict(call.arguments), restrict(gold.arguments));
}

export function communicateChecks(info: string[], agentMessages: string[]): { info: string; met: boolean }[] {
  const texts = agentMessages.map((m) => m.toLowerCase().replace(/,/g, ""));
  return info.map((i) => ({ info: i, met: texts.some((t) => t.includes(i.toLowerCase())) }));
}

type AssertionVerdict = { met: boolean[]; reasoning: string } | { unscorable: string };

async function judgeAssertions(llm: LlmChat, assertions: string[], agentMessages: string[]): Promise<AssertionVerdict> {
  const transcript = agentMessages.map((m, i) => `[agent ${i}] ${m}`).join("\n");
  let offline = false;
  const res = await llm.chat({
    role: "judge",
    responseFormat: "json",
    messages: [
      { role: "system", content: "You grade a customer-service agent's messages against assertions. Reply with JSON only." },
      {
        role: "user",
        content:
          `Agent messages:\n${transcript}\n\nAssertions:\n${assertions.map((a, i) => `${i}. ${a}`).join("\n")}\n\n` +
          'Return {"results": [{"met": true|false, "justification": "..."}]} with one entry per assertion, in order.',
      },
    ],
    // No rule can tell whether a sentence like "the agent should refuse politely" holds: offline there is no verdict.
    offline: () => {
      offline = true;
      return "{}";
    },
  });
  if (offline)
    return { unscorable: `${NOT_SCORABLE_OFFLINE}: no judge endpoint, and natural-language assertions need one (τ² asks an LLM too)` };
  try {
    const parsed = JSON.parse(res.text.replace(/^```(?:json)?|```$/g, "").trim()) as {
      results?: { met?: unknown; justification?: unknown }[];
    };
    const results = parsed.results;
    if (!Array.isArray(results) || results.length !== assertions.length || results.some((r) => typeof r.met !== "boolean"))
      return { unscorable: "the judge's reply could not be parsed" };
    return {
      met: results.map((r) => r.met === true),
      reasoning: results.map((r, i) => `${r.met ? "met" : "NOT met"}: ${assertions[i]} (${String(r.justification ?? "")})`).join("; "),
    };
  } catch {
    return { unscorable: "the judge's reply could not be parsed" };
  }
}

export async function evaluateTau2(
  task: Tau2TaskData,
  trace: Tau2Trace,
  db: DbComparison,
  llm: LlmChat,
  envChecks: { check: string; met: boolean }[] = [],
): Promise<Evaluation> {
  const components: Record<string, number> = {};
  const notes: string[] = [];
  components.db = db.same ? 1 : 0;
  notes.push(components.db ? "DB: final database equals the gold replay." : "DB: final database differs from the gold replay.");

  const comm = communicateChecks(task.communicateInfo, trace.agentMessages);
  components.communicate = comm.every((c) => c.met) ? 1 : 0;
  const missing = comm.filter((c) => !c.met).map((c) => c.info);
  if (task.communicateInfo.length)
    notes.push(missing.length ? `COMMUNICATE: not said: ${missing.join(", ")}.` : "COMMUNICATE: all required info said.");

  const unmatched = task.actions.filter((g) => !trace.toolCalls.some((c) => actionMatches(g, c)));
  components.action = unmatched.length === 0 ? 1 : 0;
  if (unmatched.length) notes.push(`ACTION: unmatched gold actions ${unmatched.map((a) => a.actionId).join(", ")}.`);

  let unscorable = false;
  if (task.nlAssertions.length === 0) components.nl_assertion = 1;
  else if (task.rewardBasis.includes("NL_ASSERTION")) {
    const verdict = await judgeAssertions(llm, task.nlAssertions, trace.agentMessages);
    if ("unscorable" in verdict) {
      unscorable = true;
      notes.push(`NL_ASSERTION: ${verdict.unscorable}; episode unscored.`);
    } else {
      components.nl_assertion = verdict.met.every(Boolean) ? 1 : 0;
      notes.push(`NL_ASSERTION: ${verdict.reasoning}`);
    }
  }

  // ENV_ASSERTION: the domain's assertion functions on the final database (1 when the task has none).
  if (envChecks.length || task.rewardBasis.includes("ENV_ASSERTION")) components.env_assertion = envChecks.every((c) => c.met) ? 1 : 0;
  const failedChecks = envChecks.filter((c) => !c.met).map((c) => c.check);
  if (envChecks.length)
    notes.push(failedChecks.length ? `ENV_ASSERTION: failed ${failedChecks.join("; ")}.` : "ENV_ASSERTION: all assertions hold.");

  const keyOf: Record<string, string> = {
    DB: "db",
    COMMUNICATE: "communicate",
    ACTION: "action",
    NL_ASSERTION: "nl_assertion",
    ENV_ASSERTION: "env_assertion",
  };
  const basis = task.rewardBasis.map((b) => keyOf[b]).filter((k): k is string => k !== undefined);
  const known = basis.reduce((p, k) => p * (components[k] ?? 1), 1);
  // An unjudged NL assertion leaves the product unknown only while every judged factor is 1: a 0 makes it 0.
  const reward = unscorable && known !== 0 ? null : known;
  if (unscorable && known === 0) notes.push("Reward 0 whatever the NL assertions say: another check of the basis failed.");
  return {
    reward,
    components,
    reasoning: `reward basis ${task.rewardBasis.join(" × ")}. ${notes.join(" ")}`,
    finalState: db.finalState,
    expectedState: db.expectedState,
  };
}

/**
 * τ²-bench scores 0 any simulation that did not end with the agent or the user stopping (its termination reasons
 * other than AGENT_STOP / USER_STOP: max steps, too many errors, an invalid message). Here: the user said
 * ###STOP###, the agent finished, or it transferred to a human; a run cut by maxTurns, a full context or an error
 * scores 0 whatever its database looks like. The components stay, so the inspector still shows what was done.
 */
export function applyTau2StopRule(evaluation: Evaluation, endReason: EpisodeEndReason): Evaluation {
  const stopped = endReason === "user_done" || endReason === "agent_finished" || endReason === "env_terminal";
  if (stopped) return { ...evaluation, components: { ...evaluation.components, stopped: 1 } };
  return {
    ...evaluation,
    reward: 0,
    components: { ...evaluation.components, stopped: 0 },
    reasoning: `Reward 0: the episode ended by ${endReason}, and τ² scores only episodes that the agent or the user stopped. ${evaluation.reasoning}`,
  };
}
