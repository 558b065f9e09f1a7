/**
 * UserRL's own data files, read as its gyms read them, turned into this environment's task records:
 * - FunctionGym `functions.json`: [{id, rule, test_case, expected_result}] — the rule must give expected_result on
 *   the test case, as UserRL's evaluator (Python arithmetic) gives it, or the record is refused;
 * - IntentionGym `all_intentions_*.json`: [{id, category, task, missing_details: [{description, importance "1"-"3",
 *   inquiry, options}]}];
 * - TelepathyGym `all_entities_refined.json`: [{id, title, description, goal, target_entity, category}];
 * - PersuadeGym `all_statements_refined.json`: [{id, claim, argument}] (the fields its statement loader and
 *   environment read; that file is empty in UserRL's snapshot, whose 420 statements live in its persuasion parquet
 *   files, read by userrl-parquet.ts) — each sentence of the argument is a counterpoint the offline user can be
 *   moved on;
 * - SearchGym `questions.json`: [{id, question, answer}] (Bamboogle); no documents, so offline searches find
 *   nothing (an LLM tool simulator plays the engine);
 * - TurtleGym `all_stories_refined.json`: {id: {new_title, new_surface, new_bottom, judgment, evaluation, …}} (stories
 *   whose judgment is not "Yes" are left out, as UserRL's curation does); an answer is graded on the story's own
 *   `evaluation` criteria, each statement weighted by its `score`, as TurtleGym grades it;
 * - TravelGym `travelgym_data_*.json`: see travel-data.ts.
 * UserRL's users are LLMs that read the whole record; the offline user here answers from keywords, so those are
 * derived from the record's text (the entity description, the story's bottom, a detail's description and options).
 * An LLM user, when configured, gets the full text.
 */
import { DatasetError } from "../types";
import { applyRule } from "./arithmetic-rule";
import { contentWords } from "./keyword-match";
import type { GymName } from "./task-schemas";
import { isTravelGymFile, travelTasksFromUserRl } from "./travel-data";

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Whether `raw` is one of UserRL's files for `gym` (else it is a file in this project's task format). */
export function isUserRlFile(gym: GymName, raw: unknown): boolean {
  if (gym === "turtle") return isRecord(raw) && Object.values(raw).some((s) => isRecord(s) && "new_surface" in s);
  if (gym === "travel") return isTravelGymFile(raw);
  if (!Array.isArray(raw) || !isRecord(raw[0])) return false;
  const first = raw[0];
  if (gym === "function") return "test_case" in first && "expected_result" in first;
  if (gym === "intention") return "missing_details" in first && "task" in first;
  if (gym === "persuade") return "claim" in first && !("counterpoints" in first);
  if (gym === "search") return "question" in first && "answer" in first && !("documents" in first);
  return "target_entity" in first; // telepathy
}

function functionTask(r: Raw, file: string, index: number): Raw {
  const id = str(r.id) || `func-${index}`;
  const testCase = r.test_case;
  if (typeof r.rule !== "string" || !Array.isArray(testCase) || testCase.length !== 4 || !testCase.every((x) => typeof x === "number")) {
    throw new DatasetError(file, id, "a function needs a rule and a test_case of four numbers");
  }
  const expected = Number(r.expected_result);
  let value: number;
  try {
    value = applyRule(r.rule, testCase);
  } catch (e) {
    throw new DatasetError(file, id, `the rule "${r.rule}" cannot be evaluated: ${(e as Error).message}`);
  }
  // UserRL's answer check is numeric with a tolerance; the stored result must agree with the rule.
  if (!(Math.abs(value - expected) <= 1e-4 * Math.max(1, Math.abs(expected)))) {
    throw new DatasetError(file, id, `the rule gives ${value} on ${JSON.stringify(testCase)}, but expected_result is ${r.expected_result}`);
  }
  return { id, rule: r.rule, testCase };
}

function intentionTask(r: Raw, file: string, index: number): Raw {
  const id = str(r.id) || `intention-${index}`;
  const details = Array.isArray(r.missing_details) ? r.missing_details.filter(isRecord) : [];
  if (!str(r.task) || details.length === 0) throw new DatasetError(file, id, "an intention needs a task and missing_details");
  return {
    id,
    request: str(r.task),
    category: str(r.category) || "general",
    details: details.map((d, i) => {
      const importance = Number(d.importance);
      if (![1, 2, 3].includes(importance))
        throw new DatasetError(file, id, `missing_details.${i}.importance must be 1, 2 or 3 (got ${JSON.stringify(d.importance)})`);
      const options = Array.isArray(d.options) ? d.options.map(String) : [];
      const keywords = contentWords(`${str(d.description)} ${str(d.inquiry)}`, 6);
      return {
        description: str(d.description),
        importance,
        keywords: keywords.length ? keywords : [str(d.description).toLowerCase()],
        // The offline user settles on the first option UserRL offers (an LLM user may choose any).
        answer: options[0] ?? str(d.description),
      };
    }),
  };
}

function telepathyTask(r: Raw, file: string, index: number): Raw {
  const id = str(r.id) || `entity-${index}`;
  const entity = str(r.title);
  const description = str(r.target_entity);
  if (!entity || !description) throw new DatasetError(file, id, "an entity needs a title and a target_entity");
  const category = str(r.category) || "thing";
  // Offline, a question mentioning the entity's category or a word of its description is answered yes.
  const yes = [...new Set([...contentWords(category.replace(/_/g, " "), 4), ...contentWords(description, 16)])];
  return {
    id,
    entity,
    aliases: entity
      .split(/\s*[-–,(]\s*/)
      .slice(0, 1)
      .filter((a) => a !== entity),
    category: category.replace(/_/g, " "),
    description,
    facts: yes.map((w) => ({ keywords: [w], answer: "yes" })),
  };
}

function persuadeTask(r: Raw, file: string, index: number): Raw {
  const id = str(r.id) || `statement-${index}`;
  const claim = str(r.claim);
  const argument = str(r.argument);
  if (!claim || !argument) throw new DatasetError(file, id, "a statement needs a claim and an argument");
  // The user's reasons, one per sentence: an argument that takes one of them up (by its words) moves the offline user.
  const reasons = argument
    .split(/(?<=[.!?])\s+/)
    .map((s) => contentWords(s, 3))
    .filter((w) => w.length > 0);
  const counterpoints = (reasons.length ? reasons : [contentWords(claim, 3)]).slice(0, 6).map((keywords) => ({ keywords }));
  return { id, claim, argument, counterpoints };
}

function searchTask(r: Raw, file: string, index: number): Raw {
  const id = str(r.id) || `question-${index}`;
  // Bamboogle's answers are strings; a number is kept as its text.
  const answer = typeof r.answer === "number" ? String(r.answer) : str(r.answer);
  if (!str(r.question) || !answer) throw new DatasetError(file, id, "a question needs a question and an answer");
  return { id, question: str(r.question), answer, documents: [] };
}

function turtleTask(id: string, r: Raw, file: string): Raw | null {
  if (str(r.judgment) && str(r.judgment).toLowerCase() !== "yes") return null;
  const surface = str(r.new_surface);
  const bottom = str(r.new_bottom);
  if (!surface || !bottom) throw new DatasetError(file, id, "a story needs new_surface and new_bottom");
  const evaluation = Array.isArray(r.evaluation) ? r.evaluation : [];
  if (evaluation.length === 0) throw new DatasetError(file, id, "a story needs its evaluation criteria ([{statement, score}])");
  return {
    id: `turtle-${id}`,
    surface,
    bottom,
    facts: contentWords(bottom, 16).map((w) => ({ keywords: [w], answer: "yes" })),
    // UserRL's own criteria: each statement with its weight (`score`); the offline judge looks for its words.
    criteria: evaluation.map((c: unknown, i) => {
      const statement = isRecord(c) ? str(c.statement) : "";
      const weight = isRecord(c) ? c.score : undefined;
      if (!statement || typeof weight !== "number")
        throw new DatasetError(file, id, `evaluation.${i} needs a statement and a numeric score (its weight)`);
      const words = contentWords(statement, 3);
      return { statement, weight, keywords: (words.length ? words : [statement.toLowerCase()]).map((w) => [w]) };
    }),
  };
}

/** UserRL's records as this environment's task records (validated afterwards by the gym's schema). */
export function fromUserRlFile(gym: GymName, raw: unknown, file: string): Raw[] {
  if (gym === "travel") return travelTasksFromUserRl(raw as Raw, file);
  if (gym === "turtle") {
    return Object.entries(raw as Raw).flatMap(([id, story]) => {
      if (!isRecord(story)) throw new DatasetError(file, id, "a story must be an object");
      const task = turtleTask(id, story, file);
      return task ? [task] : [];
    });
  }
  const rows = (raw as unknown[]).map((r, i) => {
    if (!isRecord(r)) throw new DatasetError(file, i, "each record must be an object");
    return r;
  });
  if (gym === "function") return rows.map((r, i) => functionTask(r, file, i));
  if (gym === "intention") return rows.map((r, i) => intentionTask(r, file, i));
  if (gym === "persuade") return rows.map((r, i) => persuadeTask(r, file, i));
  if (gym === "search") return rows.map((r, i) => searchTask(r, file, i));
  return rows.map((r, i) => telepathyTask(r, file, i));
}
