/**
 * Intention gym (UserRL IntentionGym): the user makes a vague request; the agent asks clarifying questions with
 * `[action]` to uncover the missing details behind it. A question that uncovers details earns the UserRL turn
 * reward — by the most important detail it covers (high 1.0, medium 0.7, low 0.4), minus 0.2 for each extra detail
 * covered at once (focused questions are preferred). The episode ends when every detail is uncovered or on
 * [finish]; its reward is the importance-weighted share of details uncovered. Coverage is decided by the judge role
 * (offline: the detail's keywords appear in the question); the reply comes from the user simulator (offline: the
 * user's preference for each covered detail, written in the task).
 */
import type { GymRules } from "./gym-episode";
import { countKeywordHits } from "./keyword-match";

export interface IntentionDetail {
  description: string;
  importance: 1 | 2 | 3;
  keywords: string[];
  /** What the user says when asked about this detail. */
  answer: string;
}
export interface IntentionTask {
  request: string;
  category: string;
  details: IntentionDetail[];
}

interface IntentionState {
  covered: Set<number>;
  questions: number;
  unproductive: number;
}

const IMPORTANCE_REWARD = { 3: 1, 2: 0.7, 1: 0.4 } as const;
const MULTI_DETAIL_PENALTY = 0.2;

export function intentionTurnReward(details: IntentionDetail[]): number {
  if (details.length === 0) return 0;
  const top = Math.max(...details.map((d) => d.importance)) as 1 | 2 | 3;
  return Math.max(0, IMPORTANCE_REWARD[top] - MULTI_DETAIL_PENALTY * (details.length - 1));
}

function readCovered(text: string, remaining: number[]): number[] {
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) return [];
  try {
    const v = JSON.parse(m[0]) as { covered_detail_indices?: unknown };
    if (!Array.isArray(v.covered_detail_indices)) return [];
    return v.covered_detail_indices.filter((i): i is number => typeof i === "number" && remaining.includes(i));
  } catch {
    return [];
  }
}

export const intentionRules: GymRules<IntentionTask, IntentionState> = {
  kinds: ["action"],
  stepPenalty: "once",
  finishUnpenalized: true,
  normalizeRewards: true,
  // One question per detail, most important first, then [finish].
  solution: (t) => [
    ...[...t.details].sort((a, b) => b.importance - a.importance).map((d) => `[action] Could you tell me more about the ${d.keywords[0]}?`),
    "[finish]",
  ],
  instructions: () =>
    "A user asks you for help with a vague request. Before helping, find out what they really want: ask one " +
    'focused clarifying question per message as "[action] <question>". When you understand the request, or the ' +
    'user has nothing more to tell, reply "[finish]".',
  opening: (t) => t.request,
  initState: () => ({ covered: new Set<number>(), questions: 0, unproductive: 0 }),
  async onAction(_kind, content, state, task, io) {
    state.questions++;
    const remaining = task.details.map((_, i) => i).filter((i) => !state.covered.has(i));
    const judged = await io.llm.chat({
      role: "judge",
      turn: io.turn,
      responseFormat: "json",
      messages: [
        {
          role: "system",
          content:
            'Decide which of the missing details a clarifying question asks about. Reply with JSON {"covered_detail_indices": [indices]} (empty if none).',
        },
        {
          role: "user",
          content: `Request: ${task.request}\nMissing details:\n${remaining.map((i) => `${i}. ${task.details[i].description}`).join("\n")}\nQuestion: ${content}`,
        },
      ],
      offline: () =>
        JSON.stringify({ covered_detail_indices: remaining.filter((i) => countKeywordHits(content, task.details[i].keywords) > 0) }),
    });
    const newly = readCovered(judged.text, remaining);
    newly.forEach((i) => state.covered.add(i));
    if (newly.length === 0) state.unproductive++;
    const reply = await io.llm.chat({
      role: "user_simulator",
      turn: io.turn,
      messages: [
        {
          role: "system",
          content:
            `You asked an assistant: "${task.request}". Answer its question briefly and naturally. ` +
            (newly.length > 0
              ? `Your preferences: ${newly.map((i) => task.details[i].answer).join(" ")}`
              : "You have no particular preference about what it asked."),
        },
        { role: "user", content },
      ],
      offline: () => (newly.length > 0 ? newly.map((i) => task.details[i].answer).join(" ") : "Hmm, I don't really mind about that."),
    });
    const done = state.covered.size === task.details.length;
    return {
      feedback: reply.text,
      source: "user_simulator",
      turnReward: intentionTurnReward(newly.map((i) => task.details[i])),
      done,
      endReason: "env_terminal",
      llmCallIds: [judged.callId, reply.callId],
    };
  },
  evaluate: (s, task) => {
    const total = task.details.reduce((n, d) => n + d.importance, 0);
    const got = task.details.reduce((n, d, i) => n + (s.covered.has(i) ? d.importance : 0), 0);
    const coverage = total === 0 ? 1 : got / total;
    return {
      reward: Math.round(coverage * 1000) / 1000,
      components: {
        weighted_coverage: coverage,
        details_covered: s.covered.size,
        questions: s.questions,
        unproductive_questions: s.unproductive,
      },
      reasoning: `Uncovered ${s.covered.size}/${task.details.length} details (importance-weighted ${(coverage * 100).toFixed(0)}%) with ${s.questions} question(s).`,
      // Keyed by detail in both, so the inspector lists the details left uncovered as missing.
      finalState: { covered: Object.fromEntries([...s.covered].sort().map((i) => [task.details[i].description, true])) },
      expectedState: { covered: Object.fromEntries(task.details.map((d) => [d.description, true])) },
    };
  },
};
