/**
 * Deterministic, task-driven stand-ins for the three LLM roles, so the simulated environment runs (and a policy
 * can learn in it) without any API key. They are simple on purpose — keyword matching and lookups in the task's
 * expected outcome — but they reward the right behaviour and nothing else: ask for the facts you need, make the
 * expected calls with the right arguments, tell the user the outcome.
 */
import type { SimulatedTaskData } from "./task-schema";
import { argumentsMatch, canonicalCall, mentions, type ArgumentMatch } from "./matching";
import { TERMINATE_MARKER } from "../../../lib/simulated-prompts";

export interface MadeCall {
  name: string;
  arguments: Record<string, unknown>;
  turn: number;
  result: string;
}

/** What the episode has observed so far; the offline roles read it, never the raw transcript. */
export interface SimulatedState {
  calls: MadeCall[];
  /** Everything the agent said to the user (messages, answers, prose around calls), by turn. */
  agentTexts: { turn: number; text: string }[];
  revealedFacts: Set<number>;
  followUpsUsed: number;
  formatErrors: number;
  policyTurns: number;
}

export function createSimulatedState(): SimulatedState {
  return { calls: [], agentTexts: [], revealedFacts: new Set(), followUpsUsed: 0, formatErrors: 0, policyTurns: 0 };
}

function callsDone(task: SimulatedTaskData, state: SimulatedState, mode: ArgumentMatch): boolean[] {
  return task.expected.calls.map((e) => state.calls.some((c) => c.name === e.name && argumentsMatch(e.arguments, c.arguments, mode)));
}

function factsTold(task: SimulatedTaskData, state: SimulatedState): boolean[] {
  return task.expected.facts.map((f) => state.agentTexts.some((t) => mentions(t.text, f)));
}

/** The user's reply to an agent message addressed to them. */
export function offlineUserReply(task: SimulatedTaskData, state: SimulatedState, agentText: string): string {
  const goalMet = callsDone(task, state, "lenient").every(Boolean) && factsTold(task, state).every(Boolean);
  if (goalMet && (task.expected.calls.length > 0 || task.expected.facts.length > 0)) {
    return `Great, that's everything I needed. Thank you! ${TERMINATE_MARKER}`;
  }
  const lower = agentText.toLowerCase();
  const asked = task.facts.map((f, i) => ({ f, i })).filter(({ f }) => f.keys.some((k) => lower.includes(k.toLowerCase())));
  if (asked.length > 0) {
    for (const { i } of asked) state.revealedFacts.add(i);
    return asked.map(({ f }) => f.say).join(" ");
  }
  if (state.followUpsUsed < task.followUps.length) return task.followUps[state.followUpsUsed++];
  return `I still need help with this: ${task.opening}`;
}

export type OfflineToolAnswer = { ok: true; result: string } | { ok: false; error: string };

function requiredArgs(schema: Record<string, unknown>): string[] {
  const req = schema.required;
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === "string") : [];
}

/**
 * The tool's answer: the expected result when the arguments identify the expected record, an error result when
 * they do not, a consistent repeat for a repeated call. Unknown tools are the caller's (environment's) problem.
 */
export function offlineToolAnswer(task: SimulatedTaskData, state: SimulatedState, name: string, args: Record<string, unknown>): string {
  const tool = task.tools.find((t) => t.name === name);
  const missing = tool ? requiredArgs(tool.parameters).filter((r) => !(r in args)) : [];
  if (missing.length > 0) return JSON.stringify({ error: `missing required argument(s): ${missing.join(", ")}` });
  const key = canonicalCall(name, args);
  const earlier = state.calls.find((c) => canonicalCall(c.name, c.arguments) === key);
  if (earlier) return earlier.result;
  const match = task.expected.calls.find((e) => e.name === name && argumentsMatch(e.arguments, args, "lenient"));
  if (match) return JSON.stringify(match.result ?? { status: "ok" });
  if (task.expected.calls.some((e) => e.name === name)) {
    return JSON.stringify({ error: `no record matches ${JSON.stringify(args)}` });
  }
  return JSON.stringify(task.toolDefaults[name] ?? { status: "ok" });
}

export interface OfflineJudgeOptions {
  /** Share of checklist items (expected calls + facts) needed for reward 1. 1 = all (strict). */
  threshold: number;
  argumentMatch: ArgumentMatch;
}

/** The offline judge's reply, as the JSON text an LLM judge would give (it goes through the same parser). */
export function offlineJudgeReply(task: SimulatedTaskData, state: SimulatedState, options: OfflineJudgeOptions): string {
  const calls = callsDone(task, state, options.argumentMatch);
  const facts = factsTold(task, state);
  const forbidden = state.calls.filter((c) => task.expected.forbiddenCalls.includes(c.name));
  const items = [...calls, ...facts];
  const score = items.length === 0 ? 1 : items.filter(Boolean).length / items.length;
  const passed = forbidden.length === 0 && score >= options.threshold - 1e-9;
  const lines = [
    ...task.expected.calls.map((e, i) => `${calls[i] ? "✓" : "✗"} call ${e.name}(${JSON.stringify(e.arguments)})`),
    ...task.expected.facts.map((f, i) => `${facts[i] ? "✓" : "✗"} told the user "${f}"`),
    ...forbidden.map((c) => `✗ made forbidden call ${c.name} at turn ${c.turn}`),
  ];
  const components: Record<string, number> = {
    calls: calls.length === 0 ? 1 : calls.filter(Boolean).length / calls.length,
    facts: facts.length === 0 ? 1 : facts.filter(Boolean).length / facts.length,
    policy: forbidden.length === 0 ? 1 : 0,
    format: state.policyTurns === 0 ? 1 : 1 - state.formatErrors / state.policyTurns,
  };
  const verdict = passed ? "Success" : "Failure";
  const reasoning = `${verdict}: ${Math.round(score * 100)}% of the expected outcome met (threshold ${Math.round(options.threshold * 100)}%). ${lines.join("; ")}.`;
  return JSON.stringify({ reasoning, reward: passed ? 1 : 0, components });
}
