/**
 * Realism score of a simulated user: how closely the distribution of its turns matches real SGD user turns, in
 * [0, 1] (1 = indistinguishable on these features). Three features, each compared as distributions over many turns
 * (not turn by turn, since a good simulator should vary like people do):
 *   - length: words per turn, compared with 1 - Kolmogorov-Smirnov distance;
 *   - slot mentions: how many known slot values a turn states (0, 1, 2, 3+), compared with 1 - total variation;
 *   - dialogue acts: share of INFORM_INTENT / INFORM / REQUEST / AFFIRM / NEGATE / THANK_YOU / GOODBYE / OTHER,
 *     tagged by the same keyword tagger on both sides (using SGD's gold acts for real turns only would confound the
 *     simulator's realism with the tagger's error), compared with 1 - total variation.
 * The score is the mean of the three. Agent Gym's simulator-improvement loop uses such a score to decide whether
 * few-shot selection made the simulated user more human.
 */
import type { SgdDialogue } from "./sgd-format";
import type { SgdGoalIntent } from "./sgd-task";
import { speakValue } from "./offline-user";

export interface UserTurnSample {
  text: string;
  /** Slot values the speaker could mention (lower-cased substrings are searched). */
  knownValues: string[];
}

export const USER_ACTS = ["INFORM_INTENT", "INFORM", "REQUEST", "AFFIRM", "NEGATE", "THANK_YOU", "GOODBYE", "OTHER"] as const;
export type UserAct = (typeof USER_ACTS)[number];

const wordCount = (t: string): number => t.split(/\s+/).filter((w) => /\w/.test(w)).length;

export function countSlotMentions(s: UserTurnSample): number {
  const text = s.text.toLowerCase();
  return new Set(s.knownValues.map((v) => v.toLowerCase()).filter((v) => v.length > 1 && text.includes(v))).size;
}

export function tagUserActs(s: UserTurnSample): Set<UserAct> {
  const t = s.text.toLowerCase();
  const acts = new Set<UserAct>();
  if (/\b(i('d| would)? (like|want|need)|looking for|help me|can you (find|book|reserve|search)|find me)\b/.test(t))
    acts.add("INFORM_INTENT");
  if (countSlotMentions(s) > 0) acts.add("INFORM");
  if (/\?|\b(what|which|where|how|is there|do they|does it|can you tell)\b/.test(t)) acts.add("REQUEST");
  if (/^(yes|yeah|yep|sure|ok(ay)?|correct|that('s| is) (right|correct|fine|good)|sounds good|perfect|great)\b/.test(t)) acts.add("AFFIRM");
  if (/^(no|nope|not really)\b|\b(don't|do not) (want|need)\b/.test(t)) acts.add("NEGATE");
  if (/\bthank/.test(t)) acts.add("THANK_YOU");
  if (/\b(bye|that('s| is| would be) all|nothing else)\b/.test(t)) acts.add("GOODBYE");
  if (acts.size === 0) acts.add("OTHER");
  return acts;
}

function ksDistance(a: number[], b: number[]): number {
  if (a.length === 0 || b.length === 0) return 1;
  const xs = [...a].sort((x, y) => x - y);
  const ys = [...b].sort((x, y) => x - y);
  let i = 0;
  let j = 0;
  let d = 0;
  for (const v of [...new Set([...xs, ...ys])].sort((x, y) => x - y)) {
    while (i < xs.length && xs[i] <= v) i++;
    while (j < ys.length && ys[j] <= v) j++;
    d = Math.max(d, Math.abs(i / xs.length - j / ys.length));
  }
  return d;
}

function totalVariation(p: number[], q: number[]): number {
  const sp = p.reduce((s, x) => s + x, 0) || 1;
  const sq = q.reduce((s, x) => s + x, 0) || 1;
  return 0.5 * p.reduce((s, x, k) => s + Math.abs(x / sp - q[k] / sq), 0);
}

const mentionHistogram = (turns: UserTurnSample[]): number[] => {
  const h = [0, 0, 0, 0];
  for (const s of turns) h[Math.min(3, countSlotMentions(s))]++;
  return h;
};
const actHistogram = (turns: UserTurnSample[]): number[] => {
  const h = USER_ACTS.map(() => 0);
  for (const s of turns) for (const a of tagUserActs(s)) h[USER_ACTS.indexOf(a)]++;
  return h;
};

export interface RealismScore {
  realism: number;
  length: number;
  slotMentions: number;
  acts: number;
}

export function scoreUserRealism(simulated: UserTurnSample[], real: UserTurnSample[]): RealismScore {
  const length =
    1 -
    ksDistance(
      simulated.map((s) => wordCount(s.text)),
      real.map((s) => wordCount(s.text)),
    );
  const slotMentions = 1 - totalVariation(mentionHistogram(simulated), mentionHistogram(real));
  const acts = 1 - totalVariation(actHistogram(simulated), actHistogram(real));
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    realism: round((length + slotMentions + acts) / 3),
    length: round(length),
    slotMentions: round(slotMentions),
    acts: round(acts),
  };
}

/** Real user turns of SGD dialogues; known values = every slot value the dialogue's user turns or calls contain. */
export function realUserTurns(dialogues: SgdDialogue[]): UserTurnSample[] {
  return dialogues.flatMap((d) => {
    const values = new Set<string>();
    for (const t of d.turns) {
      for (const f of t.frames) {
        if (t.speaker === "USER") for (const a of f.actions) if (a.slot !== "intent") a.values.forEach((v) => values.add(v));
        if (f.serviceCall) Object.values(f.serviceCall.parameters).forEach((v) => values.add(v));
      }
    }
    return d.turns.filter((t) => t.speaker === "USER").map((t) => ({ text: t.utterance, knownValues: [...values] }));
  });
}

/** Simulated user turns with the goal's values, canonical and as spoken ("17:30" and "5:30 pm"). */
export function simulatedUserTurns(texts: string[], goal: SgdGoalIntent[]): UserTurnSample[] {
  const values = goal.flatMap((g) => Object.values(g.parameters).flatMap((v) => [v, speakValue(v)]));
  return texts.map((text) => ({ text, knownValues: values }));
}
