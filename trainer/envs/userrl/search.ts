/**
 * Search gym (UserRL SearchGym): a question to answer, with `[search] <query>` for web results and
 * `[answer] <answer>` to commit. As SearchGym scores it: an answer is right when it equals the gold answer after
 * normalisation (lower case, letters and digits only), else when a judge LLM says it names the same thing; a right
 * answer earns 1 and ends the episode, a wrong one 0 and the episode goes on; searches earn nothing, and after 5 of
 * them the agent is told to answer instead. The episode's reward is 1 if it was answered right, else 0.
 *
 * The search engine: SearchGym calls Serper (Google results, "1. <title>\n- Snippet: <snippet>" lines). Here the
 * tool-simulator role plays it (an LLM asked for results in that layout), and offline the task's own documents are
 * ranked by the query's keyword hits. UserRL's questions file has no documents, so offline its questions get no
 * results: configure a tool-simulator endpoint to play the engine for them.
 *
 * Deliberate difference: a judge reply that cannot be read is asked for again once, then the episode is unscored
 * (SearchGym's exception path counts the answer wrong).
 */
import type { GymRules, GymTurnOutcome } from "./gym-episode";
import { countKeywordHits } from "./keyword-match";
import { askJson, firstJsonObject } from "./ask-json";

export interface SearchTask {
  question: string;
  answer: string;
  /** The offline engine's corpus: what a search whose words hit a document's keywords returns. */
  documents: { title: string; snippet: string; keywords: string[] }[];
}

interface SearchState {
  searches: number;
  answers: number;
  correct: boolean;
  failure: string | null;
}

/** SearchGym's limits and rewards (its config defaults). */
export const MAX_SEARCHES = 5;
const MAX_RESULTS = 5;

/** SearchGym's answer_normalize: lower case, only letters and digits (Unicode-aware, as Python's isalnum). */
export const normalizeAnswer = (s: string): string => [...s.toLowerCase()].filter((c) => /[\p{L}\p{N}]/u.test(c)).join("");

/** Serper's results as SearchGym prints them. */
export function formatResults(results: { title: string; snippet: string }[]): string {
  return results.map((r, i) => `${i + 1}. ${r.title}\n- Snippet: ${r.snippet}`).join("\n");
}

export function offlineSearch(task: SearchTask, query: string): string {
  const ranked = task.documents
    .map((d, i) => ({ d, i, hits: countKeywordHits(query, d.keywords) }))
    .filter((r) => r.hits > 0)
    .sort((a, b) => b.hits - a.hits || a.i - b.i)
    .slice(0, MAX_RESULTS);
  return ranked.length ? formatResults(ranked.map((r) => r.d)) : "No results found.";
}

function readJudgement(text: string): "Yes" | "No" | null {
  const judgment = firstJsonObject(text)?.judgment;
  return judgment === "Yes" || judgment === "No" ? judgment : null;
}

export const searchRules: GymRules<SearchTask, SearchState> = {
  kinds: ["search", "answer"],
  stepPenalty: "per-step",
  normalizeRewards: false,
  // Search with the first document's words, then answer.
  solution: (t) => [...(t.documents[0] ? [`[search] ${t.documents[0].keywords.join(" ")}`] : []), `[answer] ${t.answer}`],
  instructions: () =>
    'Answer the question. You may look things up with "[search] <query>" (up to 5 searches); give your answer with ' +
    '"[answer] <answer>" — short, just the answer. You may answer again if you were wrong, or stop with "[finish]".',
  opening: (t) => `Question: ${t.question}`,
  initState: () => ({ searches: 0, answers: 0, correct: false, failure: null }),
  async onAction(kind, content, state, task, io): Promise<GymTurnOutcome> {
    if (kind === "search") {
      state.searches++;
      if (state.searches > MAX_SEARCHES) {
        return {
          feedback: `You have used all ${MAX_SEARCHES} searches. Give your answer next; do not search again.`,
          source: "environment",
          turnReward: 0,
        };
      }
      if (!content)
        return { feedback: "The search query is empty. Write what to search for after [search].", source: "environment", turnReward: 0 };
      const res = await io.llm.chat({
        role: "tool_simulator",
        turn: io.turn,
        messages: [
          {
            role: "system",
            content:
              `You are a web search engine. Return up to ${MAX_RESULTS} results for the query, most relevant first, each as ` +
              '"<n>. <page title>\\n- Snippet: <one or two sentences from the page>". Only the results, nothing else.',
          },
          { role: "user", content },
        ],
        offline: () => offlineSearch(task, content),
      });
      return {
        feedback: `Search results for '${content}':\n${res.text}`,
        source: "tool_simulator",
        turnReward: 0,
        llmCallIds: [res.callId],
      };
    }

    if (!content) return { feedback: "The answer is empty. Write your answer after [answer].", source: "environment", turnReward: 0 };
    state.answers++;
    let correct = normalizeAnswer(content) === normalizeAnswer(task.answer);
    const llmCallIds: string[] = [];
    if (!correct) {
      const judged = await askJson(io, {
        role: "judge",
        messages: [
          {
            role: "system",
            content:
              "Judge whether an answer to a question is correct: the same as the correct answer, or a clearly equivalent " +
              'way of naming it in the question\'s context. Reply with only JSON {"reasoning": "...", "judgment": "Yes" | "No", ' +
              '"feedback": "a short note to the one who answered, in the second person, that never reveals the correct answer"}.',
          },
          { role: "user", content: `Question: ${task.question}\nTheir answer: ${content}\nCorrect answer: ${task.answer}` },
        ],
        read: readJudgement,
        expected: 'expected JSON with "judgment": "Yes" or "No"',
        // Offline there is no judge of synonyms: only the normalised exact match (SearchGym's rule mode) counts.
        offline: () =>
          JSON.stringify({ reasoning: "Not the same after normalisation.", judgment: "No", feedback: "That is not the answer." }),
      });
      const verdict = judged.value;
      llmCallIds.push(...judged.callIds);
      if (verdict === null) {
        state.failure = "the judge's reply could not be read twice, so the answer was never judged";
        return {
          feedback: "Your answer could not be judged.",
          source: "environment",
          turnReward: 0,
          done: true,
          endReason: "error",
          llmCallIds,
        };
      }
      correct = verdict === "Yes";
    }
    if (correct) {
      state.correct = true;
      return {
        feedback: `Correct: '${content}' is the answer.`,
        source: "tool",
        turnReward: 1,
        done: true,
        endReason: "agent_finished",
        llmCallIds,
      };
    }
    return { feedback: `Incorrect: '${content}' is not the answer.`, source: "tool", turnReward: 0, llmCallIds };
  },
  evaluate: (s, task) => {
    const components = { correct: s.correct ? 1 : 0, searches: s.searches, answers: s.answers };
    if (s.failure) return { reward: null, components, reasoning: `Not scored: ${s.failure}.` };
    return {
      reward: s.correct ? 1 : 0,
      components,
      reasoning: s.correct
        ? `Answered "${task.answer}" after ${s.searches} search(es).`
        : `Did not reach the answer "${task.answer}" (${s.answers} answer(s), ${s.searches} search(es)).`,
      expectedState: { answer: task.answer },
    };
  },
};
