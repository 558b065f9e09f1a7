/**
 * The quality judge of an Agent Gym episode: an LLM (role "judge") reads the transcript and the user's goal and
 * returns a 0-1 score with reasoning. Offline, a transparent rule-based rubric stands in, computed from facts the
 * episode measured (so the offline score is explainable line by line in the inspector).
 */
import type { LlmChat } from "../types";
import type { SgdGoalIntent } from "./sgd-task";

export interface JudgeFacts {
  goalCompletion: number;
  toolCalls: number;
  toolErrors: number;
  formatErrors: number;
  /** The agent told the user at least one value from a successful service result. */
  informedUser: boolean;
  /** The simulated user ended the conversation satisfied. */
  userDone: boolean;
  policyTurns: number;
  maxTurns: number;
}

export interface JudgeVerdict {
  score: number;
  reasoning: string;
}

/** Weights of the offline rubric; they sum to 1. */
const RUBRIC = { goal: 0.35, informed: 0.2, noErrors: 0.2, userDone: 0.15, efficiency: 0.1 } as const;

export function offlineJudge(f: JudgeFacts): JudgeVerdict {
  // "No errors" and "efficient" are only merits of an assistant that helped at all: an episode of garbage made no
  // calls (so no errors) and was short, and crediting that gave random bytes 0.3 — every sample of a group scored
  // alike, so GRPO saw no signal.
  const helped = f.goalCompletion > 0 || f.informedUser;
  const noErrors = helped ? Math.max(0, 1 - 0.5 * (f.toolErrors + f.formatErrors)) : 0;
  const efficiency = !helped ? 0 : f.maxTurns <= 1 ? 1 : Math.max(0, 1 - Math.max(0, f.policyTurns - 2) / (f.maxTurns - 1));
  const score =
    RUBRIC.goal * f.goalCompletion +
    RUBRIC.informed * (f.informedUser ? 1 : 0) +
    RUBRIC.noErrors * noErrors +
    RUBRIC.userDone * (f.userDone ? 1 : 0) +
    RUBRIC.efficiency * efficiency;
  const reasoning = [
    `Goal completion ${f.goalCompletion.toFixed(2)} (weight ${RUBRIC.goal}).`,
    f.informedUser ? "The assistant reported service results to the user." : "The assistant never reported any service result to the user.",
    `${f.toolErrors} tool error(s) and ${f.formatErrors} format error(s) out of ${f.toolCalls} call(s).`,
    f.userDone ? "The user ended the conversation satisfied." : "The user did not end the conversation satisfied.",
    `${f.policyTurns} of ${f.maxTurns} turns used.`,
  ].join(" ");
  return { score: Math.round(score * 1000) / 1000, reasoning };
}

const JUDGE_SYSTEM =
  "You evaluate a virtual assistant's conversation with a user. Judge helpfulness: did it find out what the user " +
  "wanted by asking for missing details, call the right services with the user's values, confirm before making " +
  "bookings, report results accurately (no invented facts), and stay concise? Reply with only a JSON object " +
  '{"score": <number from 0 to 1>, "reasoning": "<two or three sentences>"}.';

/** Reads {"score", "reasoning"} from a judge reply (bare JSON or inside prose/fences); null if unusable. */
export function parseJudgeReply(text: string): JudgeVerdict | null {
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) return null;
  try {
    const v = JSON.parse(m[0]) as { score?: unknown; reasoning?: unknown };
    const score = typeof v.score === "string" ? Number(v.score) : v.score;
    if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1) return null;
    return { score, reasoning: typeof v.reasoning === "string" ? v.reasoning : "" };
  } catch {
    return null;
  }
}

/** Asks the judge; returns null when the reply cannot be read (the episode is then unscored, never 0). */
export async function judgeEpisode(
  llm: LlmChat,
  goal: SgdGoalIntent[],
  transcript: string,
  facts: JudgeFacts,
  turn: number,
): Promise<(JudgeVerdict & { callId: string }) | null> {
  const goalText = goal.map((g) => `${g.intent}(${JSON.stringify(g.parameters)})`).join("; ");
  const res = await llm.chat({
    role: "judge",
    turn,
    responseFormat: "json",
    messages: [
      { role: "system", content: JUDGE_SYSTEM },
      { role: "user", content: `User goal: ${goalText}\n\nConversation:\n${transcript}` },
    ],
    offline: () => JSON.stringify(offlineJudge(facts)),
  });
  const verdict = parseJudgeReply(res.text);
  return verdict ? { ...verdict, callId: res.callId } : null;
}
