/**
 * Telepathy gym (UserRL TelepathyGym): the user thinks of an entity; the agent asks yes/no questions with
 * `[action]` and guesses with `[answer]`. Turn reward = improvement of the best guess score (so only the first
 * correct guess earns 1), matching UserRL; every guess is judged by the judge role, whose verdict decides. The user is
 * an LLM role; offline it answers from the facts listed in the task (the fact whose keywords best match the question;
 * "Maybe" when none does) and the offline judge accepts the entity's name or an alias.
 */
import type { GymRules } from "./gym-episode";
import { bestKeywordMatch, mentionsKeyword, readVerdict } from "./keyword-match";

export interface TelepathyTask {
  entity: string;
  /** Other names that count as a correct guess. */
  aliases: string[];
  category: string;
  /** The entity in full (UserRL's target_entity), for an LLM user. */
  description?: string;
  facts: { keywords: string[]; answer: "yes" | "no" }[];
}

interface TelepathyState {
  questions: number;
  wrongGuesses: number;
  best: number;
}

const YNM = ["Yes", "No", "Maybe"] as const;

export function offlineTelepathyAnswer(task: TelepathyTask, question: string): (typeof YNM)[number] {
  if ([task.entity, ...task.aliases].some((n) => mentionsKeyword(question, n))) return "Yes";
  const i = bestKeywordMatch(question, task.facts);
  if (i < 0) return "Maybe";
  return task.facts[i].answer === "yes" ? "Yes" : "No";
}

export function isCorrectGuess(task: TelepathyTask, guess: string): boolean {
  const g = guess
    .toLowerCase()
    .replace(/[^a-z0-9 ]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return [task.entity, ...task.aliases].some((n) => {
    const name = n
      .toLowerCase()
      .replace(/[^a-z0-9 ]/g, " ")
      .replace(/\s+/g, " ")
      .trim();
    return g === name || new RegExp(`\\b${name}\\b`).test(g);
  });
}

export const telepathyRules: GymRules<TelepathyTask, TelepathyState> = {
  kinds: ["action", "answer"],
  stepPenalty: "per-step",
  normalizeRewards: true,
  // One informative question, then the answer.
  solution: (t) => [`[action] Is it related to ${t.facts[0].keywords[0]}?`, `[answer] ${t.entity}`],
  instructions: () =>
    "Let's play a mind-reading game. The user is thinking of something. Ask yes/no questions to narrow it down, " +
    'one per message, as "[action] <question>". When you are confident, guess with "[answer] <what it is>". ' +
    'You may stop with "[finish]". Good players halve the possibilities with each question.',
  opening: (t) => `I'm thinking of something (category: ${t.category}). Ask me yes/no questions to figure out what it is!`,
  initState: () => ({ questions: 0, wrongGuesses: 0, best: 0 }),
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
            content: `You are thinking of: ${task.description ?? task.entity}. Answer the player's yes/no question truthfully about it. Reply with JSON {"response": "Yes" | "No" | "Maybe"}; use Maybe only when it is genuinely ambiguous. Never reveal the entity.`,
          },
          { role: "user", content: content },
        ],
        offline: () => JSON.stringify({ response: offlineTelepathyAnswer(task, content) }),
      });
      return { feedback: readVerdict(res.text, YNM, "Maybe"), source: "user_simulator", turnReward: 0, llmCallIds: [res.callId] };
    }
    // Every guess goes to the judge, as in TelepathyGym: its verdict decides, even on a guess that spells the name
    // (offline, the judge is the name-and-alias match).
    const res = await io.llm.chat({
      role: "judge",
      turn: io.turn,
      responseFormat: "json",
      messages: [
        {
          role: "system",
          content: 'Decide whether a guess names the target exactly or by a clear synonym. Reply with JSON {"judgment": "Yes" | "No"}.',
        },
        { role: "user", content: `Target: ${task.description ?? task.entity}\nGuess: ${content}` },
      ],
      offline: () => JSON.stringify({ judgment: isCorrectGuess(task, content) ? "Yes" : "No" }),
    });
    const llmCallIds = [res.callId];
    const correct = readVerdict(res.text, ["Yes", "No"] as const, "No") === "Yes";
    const score = correct ? 1 : 0;
    const gain = Math.max(0, score - state.best);
    state.best = Math.max(state.best, score);
    if (!correct) state.wrongGuesses++;
    return correct
      ? {
          feedback: "Yes! You read my mind.",
          source: "user_simulator",
          turnReward: gain,
          done: true,
          endReason: "agent_finished",
          llmCallIds,
        }
      : { feedback: "No, that's not it. Keep asking!", source: "user_simulator", turnReward: 0, llmCallIds };
  },
  evaluate: (s, task) => ({
    reward: s.best,
    components: { solved: s.best, questions: s.questions, wrong_guesses: s.wrongGuesses },
    reasoning:
      s.best === 1
        ? `Guessed ${task.entity} after ${s.questions} question(s).`
        : `Did not guess ${task.entity} (${s.wrongGuesses} wrong guess(es)).`,
    expectedState: { entity: task.entity },
  }),
};
