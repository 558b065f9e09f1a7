/**
 * Persuade gym (UserRL PersuadeGym): the user holds a statement — "Strongly Agree" at the start — with a reason of
 * their own, and the agent argues with `[action]` (or `[answer]`) to move them toward disagreeing. After each
 * argument the user (an LLM) replies and states a stance on UserRL's seven-point scale. The turn reward is UserRL's:
 * the levels moved toward disagreement since the previous stance, over 6 (nothing for standing still or moving
 * back), so the rewards of an episode that only moves forward sum to its final stance's score. The episode ends when
 * the user strongly disagrees, on [finish], or at the turn limit; its reward is the final stance's score.
 *
 * Deliberate difference: UserRL answers an unreadable persuadee reply with a stock sentence and reward 0. Here the
 * reply is recorded as a failed call and asked for again once; if that fails too, the episode ends unscored.
 *
 * Offline, the user is rule-based: each counterpoint of the task that an argument addresses for the first time (one
 * of its keywords) moves the stance ⌈6 / counterpoints⌉ levels; anything else leaves it where it is.
 */
import type { GymRules, GymTurnOutcome } from "./gym-episode";
import { countKeywordHits } from "./keyword-match";
import { askJson, firstJsonObject } from "./ask-json";
import { pythonLiteralEval } from "../../../lib/python-literal";
import { pythonStrip } from "../../../lib/python-values";

export const STANCES = ["Strongly Agree", "Agree", "Partly Agree", "Neutral", "Partly Disagree", "Disagree", "Strongly Disagree"] as const;
export type Stance = (typeof STANCES)[number];

/** UserRL's score of a stance (its stance_to_score table, four decimals). */
const STANCE_SCORE: Record<Stance, number> = {
  "Strongly Agree": 0,
  Agree: 0.1667,
  "Partly Agree": 0.3333,
  Neutral: 0.5,
  "Partly Disagree": 0.6667,
  Disagree: 0.8333,
  "Strongly Disagree": 1,
};

export const stanceScore = (s: Stance): number => STANCE_SCORE[s];

/** UserRL's turn reward: levels moved toward disagreement over 6, rounded to 6 decimals; 0 when not moving forward. */
export function persuasionReward(previous: Stance, current: Stance): number {
  const levels = STANCES.indexOf(current) - STANCES.indexOf(previous);
  if (levels <= 0) return 0;
  return levels >= 6 ? 1 : Math.round((levels / 6) * 1e6) / 1e6;
}

export interface PersuadeTask {
  claim: string;
  /** The user's own reason for agreeing (UserRL's `argument`). */
  argument: string;
  /** What an argument can address to move the offline user; `rebuttal` is the scripted solver's line for it. */
  counterpoints: { keywords: string[]; rebuttal?: string }[];
}

interface PersuadeState {
  stance: Stance;
  best: Stance;
  /** Persuader argument and the user's reply, oldest first (the LLM user's conversation history). */
  history: { argument: string; reply: string }[];
  addressed: Set<number>;
  /** Why the episode could not be scored (the user's reply stayed unreadable). */
  failure: string | null;
}

/**
 * PersuadeGym's own read of the user's reply (prompts.py parse_llm_response): stripped, a leading ```json and a
 * trailing ``` cut, then ast.literal_eval — so a Python dict (`{'stance': 'Disagree'}`) is a reply.
 */
function userRlLiteral(text: string): Record<string, unknown> | null {
  let t = pythonStrip(text);
  if (t.startsWith("```json")) t = t.slice(7);
  if (t.endsWith("```")) t = t.slice(0, -3);
  const read = pythonLiteralEval(t);
  return read && typeof read.value === "object" && read.value !== null && !Array.isArray(read.value)
    ? (read.value as Record<string, unknown>)
    : null;
}

/**
 * The user's reply: PersuadeGym's read first, then (our addition) a JSON object found in prose or holding JSON's
 * true / null, with the stance matched whatever its case. UserRL answers those last forms with its stock reply
 * ("I'm having trouble understanding…", stance kept, reward 0) and keeps a stance off its scale ("neutral") as the new
 * stance, worth 0 from then on: slips of the simulated user, not of the policy, which a policy cannot learn from.
 */
export function parsePersuadeeReply(text: string): { response: string; stance: Stance } | null {
  const v = userRlLiteral(text) ?? firstJsonObject(text);
  const stance = STANCES.find((s) => typeof v?.stance === "string" && s.toLowerCase() === v.stance.trim().toLowerCase());
  return v && typeof v.response === "string" && stance ? { response: v.response, stance } : null;
}

/** The offline user: new counterpoints move it toward disagreement; repeats and off-topic arguments do not. */
export function offlinePersuadee(task: PersuadeTask, state: Pick<PersuadeState, "stance" | "addressed">, argument: string) {
  const fresh = task.counterpoints
    .map((c, i) => i)
    .filter((i) => !state.addressed.has(i) && countKeywordHits(argument, task.counterpoints[i].keywords) > 0);
  const step = Math.ceil((STANCES.length - 1) / task.counterpoints.length);
  const index = Math.min(STANCES.length - 1, STANCES.indexOf(state.stance) + step * fresh.length);
  const stance = STANCES[index];
  const response =
    fresh.length > 0
      ? `You make a fair point about ${task.counterpoints[fresh[0]].keywords[0]}. I'm less sure than I was.`
      : `I don't see how that changes anything. ${task.argument}`;
  return { fresh, reply: { thought: fresh.length > 0 ? "A point I had not weighed." : "Nothing new.", response, stance } };
}

function persuadeePrompt(task: PersuadeTask, state: PersuadeState, argument: string) {
  const history = state.history.length
    ? state.history.map((h, i) => `Turn ${i + 1}:\nPersuader: ${h.argument}\nYou: ${h.reply}`).join("\n\n")
    : "None yet: this is the first argument.";
  return [
    {
      role: "system" as const,
      content:
        "You hold a position on a statement and someone is trying to change your mind. Weigh each argument " +
        "honestly: reply to it in a natural, respectful but critical way, speaking to the persuader as 'you', and " +
        "point out weak reasoning. Change your stance only as far as the arguments justify. Stances, from one end " +
        `to the other: ${STANCES.join(", ")}.`,
    },
    {
      role: "user" as const,
      content:
        `Statement: ${task.claim}\nYour original reason: ${task.argument}\nYour stance so far: ${state.stance}\n\n` +
        `Earlier exchanges:\n${history}\n\nThe persuader's new argument: ${argument}\n\n` +
        'Answer with only a JSON object: {"thought": "your private reasoning", "response": "your reply to them, ' +
        `at most 200 tokens", "stance": "one of ${STANCES.join(", ")}"}`,
    },
  ];
}

export const persuadeRules: GymRules<PersuadeTask, PersuadeState> = {
  kinds: ["action", "answer"],
  bareMessagesAct: true,
  stepPenalty: "once",
  normalizeRewards: true,
  // One argument per counterpoint, in order.
  solution: (t) => t.counterpoints.map((c) => `[action] ${c.rebuttal ?? `Consider the ${c.keywords[0]}: it points the other way.`}`),
  instructions: () =>
    'The user believes a statement. Change their mind: give one argument per message as "[action] <argument>", ' +
    "answering the reasons they give. They tell you how convinced they are after each argument. Stop with " +
    '"[finish]" when they disagree or will not move.',
  opening: (t) => `I strongly agree with this statement: "${t.claim}" My reason: ${t.argument} Try to change my mind.`,
  initState: () => ({ stance: "Strongly Agree", best: "Strongly Agree", history: [], addressed: new Set<number>(), failure: null }),
  async onAction(_kind, argument, state, task, io): Promise<GymTurnOutcome> {
    const offline = offlinePersuadee(task, state, argument);
    const asked = await askJson(io, {
      role: "user_simulator",
      messages: persuadeePrompt(task, state, argument),
      read: parsePersuadeeReply,
      expected: `expected JSON {"thought", "response", "stance"} with stance one of: ${STANCES.join(", ")}`,
      offline: () => JSON.stringify(offline.reply),
    });
    const reply = asked.value;
    const llmCallIds = asked.callIds;
    if (!reply) {
      state.failure = "the user simulator's reply could not be read twice (no stance), so the episode is not scored";
      return {
        feedback: "The other side could not answer.",
        source: "environment",
        turnReward: 0,
        done: true,
        endReason: "error",
        llmCallIds,
      };
    }
    offline.fresh.forEach((i) => state.addressed.add(i));
    const turnReward = persuasionReward(state.stance, reply.stance);
    state.stance = reply.stance;
    if (stanceScore(reply.stance) > stanceScore(state.best)) state.best = reply.stance;
    state.history.push({ argument, reply: reply.response });
    const convinced = reply.stance === "Strongly Disagree";
    return { feedback: reply.response, source: "user_simulator", turnReward, done: convinced, endReason: "env_terminal", llmCallIds };
  },
  evaluate: (s, task) => {
    const components = { final_stance_score: stanceScore(s.stance), best_stance_score: stanceScore(s.best), arguments: s.history.length };
    if (s.failure) return { reward: null, components, reasoning: `Not scored: ${s.failure}.`, finalState: { stance: s.stance } };
    return {
      reward: stanceScore(s.stance),
      components,
      reasoning:
        `The user went from Strongly Agree to ${s.stance} on "${task.claim}" after ${s.history.length} argument(s)` +
        (s.best !== s.stance ? ` (furthest: ${s.best}).` : "."),
      finalState: { stance: s.stance },
      expectedState: { stance: "Strongly Disagree" },
    };
  },
};
