/**
 * Turtle gym (UserRL TurtleGym, "turtle soup" lateral-thinking puzzles): the agent sees the puzzle's surface, asks
 * yes/no questions with `[action]` and proposes the hidden story with `[answer]`. Each answer is graded against
 * weighted criteria (0 / 0.5 / 1 per criterion, as in UserRL); the turn reward is the improvement of the best
 * score and the episode ends once every criterion is fully covered. Offline, questions are answered from the
 * task's keyword facts (Yes / No, "Irrelevant" when no fact applies) and answers graded by keyword groups.
 */
import type { GymRules } from "./gym-episode";
import { bestKeywordMatch, countKeywordHits, readVerdict } from "./keyword-match";

export interface TurtleTask {
  surface: string;
  bottom: string;
  facts: { keywords: string[]; answer: "yes" | "no" }[];
  /** `keywords`: groups of synonyms; the criterion is fully covered when every group is mentioned. */
  criteria: { statement: string; weight: number; keywords: string[][] }[];
}

interface TurtleState {
  questions: number;
  answers: number;
  best: number;
}

const REPLIES = ["Yes", "No", "Irrelevant"] as const;

export function offlineTurtleReply(task: TurtleTask, question: string): (typeof REPLIES)[number] {
  const i = bestKeywordMatch(question, task.facts);
  if (i < 0) return "Irrelevant";
  return task.facts[i].answer === "yes" ? "Yes" : "No";
}

/** Per-criterion grade: 1 when all synonym groups are mentioned, 0.5 when at least half are, else 0. */
export function offlineTurtleGrades(task: TurtleTask, story: string): number[] {
  return task.criteria.map((c) => {
    const hit = c.keywords.filter((group) => countKeywordHits(story, group) > 0).length;
    return hit === c.keywords.length ? 1 : hit * 2 >= c.keywords.length ? 0.5 : 0;
  });
}

function readGrades(text: string, n: number): number[] | null {
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) return null;
  try {
    const v = JSON.parse(m[0]) as { scores?: unknown };
    if (!Array.isArray(v.scores) || v.scores.length !== n) return null;
    const grades = v.scores.map((s) =>
      typeof s === "number" ? s : typeof s === "object" && s !== null ? Number((s as { score?: unknown }).score) : NaN,
    );
    return grades.every((g) => g === 0 || g === 0.5 || g === 1) ? grades : null;
  } catch {
    return null;
  }
}

export const turtleRules: GymRules<TurtleTask, TurtleState> = {
  kinds: ["action", "answer"],
  stepPenalty: "per-step",
  normalizeRewards: true,
  solution: (t) => [`[action] Does it involve ${t.facts[0].keywords[0]}?`, `[answer] ${t.bottom}`],
  instructions: () =>
    "We are playing a lateral-thinking puzzle. You are told a strange situation; find the hidden story behind it. " +
    'Ask yes/no questions as "[action] <question>" (the user answers Yes, No or Irrelevant). Propose the full ' +
    'explanation as "[answer] <story>"; you will be told which parts you got right. Stop with "[finish]".',
  opening: (t) => `Here is the puzzle: ${t.surface}`,
  initState: () => ({ questions: 0, answers: 0, best: 0 }),
  async onAction(kind, content, state, task, io) {
    if (kind === "action") {
      state.questions++;
      const res = await io.llm.chat({
        role: "user_simulator",
        turn: io.turn,
        responseFormat: "json",
        messages: [
          {
            role: "system",
            content: `You host a lateral-thinking puzzle.\nSurface: ${task.surface}\nHidden story: ${task.bottom}\nAnswer the player's question with JSON {"response": "Yes" | "No" | "Irrelevant"}. Never reveal the hidden story.`,
          },
          { role: "user", content },
        ],
        offline: () => JSON.stringify({ response: offlineTurtleReply(task, content) }),
      });
      return { feedback: readVerdict(res.text, REPLIES, "Irrelevant"), source: "user_simulator", turnReward: 0, llmCallIds: [res.callId] };
    }
    state.answers++;
    const res = await io.llm.chat({
      role: "judge",
      turn: io.turn,
      responseFormat: "json",
      messages: [
        {
          role: "system",
          content:
            'Grade a proposed explanation of a puzzle against each criterion with 0, 0.5 or 1. Reply with JSON {"scores": [numbers, one per criterion, in order]}.',
        },
        {
          role: "user",
          content: `Hidden story: ${task.bottom}\nCriteria:\n${task.criteria.map((c, i) => `${i + 1}. ${c.statement}`).join("\n")}\nProposed explanation: ${content}`,
        },
      ],
      offline: () => JSON.stringify({ scores: offlineTurtleGrades(task, content) }),
    });
    const grades = readGrades(res.text, task.criteria.length) ?? task.criteria.map(() => 0);
    // TurtleGym's sum, in its order (weight × grade, criterion by criterion), and its gain: unrounded.
    const score = grades.reduce((s, g, i) => s + task.criteria[i].weight * g, 0);
    const gain = Math.max(0, score - state.best);
    state.best = Math.max(state.best, score);
    const covered = task.criteria.filter((_, i) => grades[i] === 1).map((c) => `- ${c.statement}`);
    // UserRL trains TurtleGym with success_threshold 1.0 on that float sum: weights such as 0.4 + 0.3 + 0.2 + 0.1
    // add up to 0.9999999999999999, so (as there) a fully right answer does not end those stories.
    const solved = score >= 1;
    const feedback = solved
      ? "That's exactly what happened. Well done!"
      : covered.length > 0
        ? `You got these parts right:\n${covered.join("\n")}\nThere is more to the story; keep asking.`
        : "Your explanation does not match the story yet. Keep asking questions.";
    return {
      feedback,
      source: "user_simulator",
      turnReward: gain,
      done: solved,
      endReason: "agent_finished",
      llmCallIds: [res.callId],
    };
  },
  evaluate: (s, task) => ({
    reward: Math.round(s.best * 1000) / 1000,
    components: { best_answer_score: s.best, questions: s.questions, answers: s.answers },
    reasoning: `Best explanation covered ${(s.best * 100).toFixed(0)}% of the weighted criteria after ${s.questions} question(s).`,
    expectedState: { bottom: task.bottom },
  }),
};
