/**
 * agent_gym's reward: every assistant turn is judged on its own (`src/reward/llm_judge.py`), with no ground truth
 * beyond the dialogue: a quality rating (excellent 1, good 0.75, acceptable 0.5, poor 0.25, inappropriate 0),
 * and for a service call whether it was the right one (+0.5, or −0.25 if not) and how right its arguments were
 * (+0.5 × share), clamped to [0, 2]. Here the turn reward is that total / 2, in [0, 1], and feeds turn-level credit.
 * Offline a rule-based rater stands in, from what the episode can check (the user's goal, the call's slots, the
 * services' results), so garbage scores 0 and its reasons are readable in the inspector.
 */
import type { LlmChat } from "../types";
import { normalizeSlotValue } from "./normalize-slot-value";
import { pythonFloat, pythonStrip } from "../../../lib/python-values";
import type { SgdGoalIntent } from "./sgd-task";

export const QUALITY_SCORES = { excellent: 1, good: 0.75, acceptable: 0.5, poor: 0.25, inappropriate: 0 } as const;
export type Quality = keyof typeof QUALITY_SCORES;

export interface TurnVerdict {
  quality: Quality;
  /** Only for a turn with a service call. */
  toolCorrect?: boolean;
  /** Share of the call's arguments that are right, 0..1. */
  toolArgs?: number;
  reasoning: string;
}

/** agent_gym's `total_score`, in [0, 2]. */
export function totalScore(v: TurnVerdict): number {
  let score = QUALITY_SCORES[v.quality];
  if (v.toolCorrect !== undefined) score += v.toolCorrect ? 0.5 + 0.5 * (v.toolArgs ?? 0) : -0.25;
  return Math.max(0, Math.min(2, score));
}

export interface TurnToJudge {
  history: string;
  userMessage: string;
  response: string;
  tools: string;
  /** The service call the turn made, if any, and whether it executed. */
  call: { name: string; arguments: Record<string, unknown>; ok: boolean } | null;
  formatError: boolean;
  goal: SgdGoalIntent[];
  /** Values from successful results of grounded service calls so far (normalized). */
  resultValues: Set<string>;
  /** The recorded dialogue's value(s) of each slot (lower-cased name -> normalized values): what grounds an argument. */
  slotValues: Map<string, Set<string>>;
  /** The policy's plain-text messages since its last grounded call, lower-cased: a repeat of one is no progress. */
  earlierReplies: string[];
}

/** Every slot value the recorded dialogue holds, by lower-cased slot name: the user's goal and the real system's calls. */
export function recordedSlotValues(goal: SgdGoalIntent[], recorded: { parameters: Record<string, string> }[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const params of [...goal.map((g) => g.parameters), ...recorded.map((r) => r.parameters)])
    for (const [k, v] of Object.entries(params)) {
      const key = k.toLowerCase();
      if (!out.has(key)) out.set(key, new Set());
      out.get(key)!.add(normalizeSlotValue(String(v)));
    }
  return out;
}

/**
 * Whether a call holds at least one value the dialogue grounds: the slot's recorded value (normalized, whole) or a
 * value a grounded call's results returned. Any substring of what the user said is not enough: one letter of it, put
 * in every slot, was rated a right call of the right service and outscored the real dialogue.
 */
export function isGroundedCall(args: Record<string, unknown>, slotValues: Map<string, Set<string>>, resultValues: Set<string>): boolean {
  return Object.entries(args).some(([k, raw]) => {
    const v = normalizeSlotValue(String(raw));
    return v.length > 0 && (slotValues.get(k.toLowerCase())?.has(v) === true || resultValues.has(v));
  });
}

/** The goal's slots a message names (by the slot's name, or a word of it longer than 3 letters). */
function slotsNamed(lower: string, goal: SgdGoalIntent[]): Set<string> {
  const names = goal.flatMap((g) => Object.keys(g.parameters).map((k) => k.replace(/_/g, " ")));
  return new Set(names.filter((s) => lower.includes(s) || s.split(" ").some((w) => w.length > 3 && lower.includes(w))));
}

const LETTERS = /[a-z]/i;

/** The offline rater: the same rubric, from what the episode can check. */
export function offlineTurnVerdict(t: TurnToJudge): TurnVerdict {
  const text = t.response.trim();
  const letterShare = text.length ? [...text].filter((c) => LETTERS.test(c) || c === " ").length / text.length : 0;
  if (t.formatError || (!t.call && (text.split(/\s+/).filter((w) => /[a-z]{2,}/i.test(w)).length < 2 || letterShare < 0.6))) {
    return { quality: "inappropriate", reasoning: "Not a usable assistant message (malformed or not language)." };
  }
  if (t.call) {
    const intent = t.goal.find((g) => g.intent.toLowerCase() === t.call!.name.split(/\.|__/).pop()!.toLowerCase());
    if (!intent)
      return {
        quality: t.call.ok ? "acceptable" : "poor",
        toolCorrect: false,
        toolArgs: 0,
        reasoning: `Called ${t.call.name}, which the user's goal does not need.`,
      };
    const args = Object.fromEntries(Object.entries(t.call.arguments).map(([k, v]) => [k.toLowerCase(), normalizeSlotValue(String(v))]));
    const wanted = Object.entries(intent.parameters);
    const right = wanted.filter(([k, v]) => args[k.toLowerCase()] === normalizeSlotValue(String(v))).length;
    const share = wanted.length ? right / wanted.length : 1;
    // A call none of whose values the user gave, a service returned or the goal holds is invented, whatever the
    // mocker answered (agent_gym's mocker answers every call of a known method): it must not outscore real work.
    if (!isGroundedCall(t.call.arguments, t.slotValues, t.resultValues) && wanted.length > 0) {
      return {
        quality: "inappropriate",
        toolCorrect: false,
        toolArgs: 0,
        reasoning: `Called ${intent.intent} with values the user never gave and no service returned.`,
      };
    }
    return {
      quality: t.call.ok ? "acceptable" : "poor",
      toolCorrect: true,
      toolArgs: share,
      reasoning: `Called ${intent.intent}, which the goal needs, with ${right} of ${wanted.length} goal values right${t.call.ok ? "" : "; the call failed"}.`,
    };
  }
  // Plain lower-casing: normalizeSlotValue is for slot values, and is slow on whole messages.
  const lower = text.toLowerCase().replace(/\s+/g, " ");
  const earlier = t.earlierReplies.map((r) => r.replace(/\s+/g, " ").trim());
  if (earlier.includes(lower)) return { quality: "poor", reasoning: "Repeats an earlier message word for word." };
  // A detail asked for again is no progress: only slots no earlier question named count.
  const askedBefore = new Set(earlier.filter((r) => r.includes("?")).flatMap((r) => [...slotsNamed(r, t.goal)]));
  const asksForSlot = /\?/.test(text) && [...slotsNamed(lower, t.goal)].some((s) => !askedBefore.has(s));
  // A result said again (confirming a booking's details) is still reporting, unlike a question asked again.
  const reportsResult = [...t.resultValues].some((v) => v.length > 3 && lower.includes(v));
  if (reportsResult) return { quality: "good", reasoning: "Reports what the service returned." };
  if (asksForSlot) return { quality: "good", reasoning: "Asks for a detail the request needs." };
  return { quality: "poor", reasoning: "Neither asks for a needed detail nor reports a result." };
}

function judgePrompt(t: TurnToJudge): string {
  return [
    "Rate one assistant turn of a task-oriented dialogue (the assistant helps a user through service APIs).",
    `Services available:\n${t.tools}`,
    `Conversation before this turn:\n${t.history || "(none)"}`,
    `The user's latest message: ${t.userMessage || "(none)"}`,
    `The assistant's turn: ${t.response}`,
    `Service call in this turn: ${t.call ? JSON.stringify({ name: t.call.name, arguments: t.call.arguments }) : "none"}`,
    'Reply with only a JSON object: {"quality": "excellent" | "good" | "acceptable" | "poor" | "inappropriate", "reasoning": "<one or two sentences>"' +
      (t.call ? ', "correct_tool": "yes" | "no", "correct_args": <0 to 100>}' : "}") +
      ". Unreadable or off-topic text is inappropriate.",
  ].join("\n\n");
}

/** A reply field as agent_gym's DSPy predictor hands it over: a string as written, any other JSON value as its JSON text. */
const fieldText = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

/** agent_gym's `_parse_quality`: the first rating (best first) the lower-cased text contains, else "acceptable". */
function qualityOf(v: unknown): Quality {
  const text = pythonStrip(fieldText(v).toLowerCase());
  return (Object.keys(QUALITY_SCORES) as Quality[]).find((q) => text.includes(q)) ?? "acceptable";
}

/**
 * A judge reply read as agent_gym reads its judge's fields (llm_judge.py, checked on 9,018 forms in
 * agent-gym-judge-parity.test.ts): the quality by `qualityOf`; for a turn with a service call, the tool right when the
 * text is "yes", "true" or "1", and the argument score `float(text) / 100` clamped to [0, 1] (0.5 when not a number).
 * A missing field is a failed prediction in agent_gym: quality "acceptable", no tool verdict. A reply holding no JSON
 * object is unreadable (null): the caller retries, then leaves the episode unscored, never scores it in silence.
 */
export function parseTurnVerdict(text: string, withCall: boolean): TurnVerdict | null {
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) return null;
  let v: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(m[0]);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
    v = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  const notes: string[] = [];
  if (!("quality" in v)) notes.push("no quality given: acceptable, as agent_gym scores a failed rating");
  const verdict: TurnVerdict = {
    quality: "quality" in v ? qualityOf(v.quality) : "acceptable",
    reasoning: [typeof v.reasoning === "string" ? v.reasoning : "", ...notes].filter(Boolean).join(" "),
  };
  if (withCall && "correct_tool" in v && "correct_args" in v) {
    verdict.toolCorrect = ["yes", "true", "1"].includes(pythonStrip(fieldText(v.correct_tool).toLowerCase()));
    const args = pythonFloat(fieldText(v.correct_args));
    const share = args.ok ? args.value / 100 : 0.5;
    // Python's min(1.0, max(0.0, x)): NaN falls to 0.
    const atLeast0 = share > 0 ? share : 0;
    verdict.toolArgs = atLeast0 < 1 ? atLeast0 : 1;
  }
  return verdict;
}

/**
 * One turn's judgement (one retry with the parse problem fed back); null when the judge's reply cannot be read,
 * which leaves the episode unscored rather than scoring the turn 0.
 */
export async function judgeTurn(llm: LlmChat, turn: number, t: TurnToJudge): Promise<{ verdict: TurnVerdict; callIds: string[] } | null> {
  const messages: { role: "user" | "assistant"; content: string }[] = [{ role: "user", content: judgePrompt(t) }];
  const callIds: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await llm.chat({
      role: "judge",
      turn,
      responseFormat: "json",
      messages,
      offline: () => JSON.stringify(toReply(offlineTurnVerdict(t))),
    });
    callIds.push(res.callId);
    const verdict = parseTurnVerdict(res.text, t.call !== null);
    if (verdict) return { verdict, callIds };
    messages.push(
      { role: "assistant", content: res.text },
      { role: "user", content: "That reply could not be read. Answer with only the JSON object asked for." },
    );
  }
  return null;
}

function toReply(v: TurnVerdict): Record<string, unknown> {
  return {
    quality: v.quality,
    reasoning: v.reasoning,
    ...(v.toolCorrect !== undefined && { correct_tool: v.toolCorrect ? "yes" : "no", correct_args: Math.round((v.toolArgs ?? 0) * 100) }),
  };
}
