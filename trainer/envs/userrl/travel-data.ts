/**
 * UserRL's TravelGym data files (`travelgym_data_<wanted>.json`, e.g. `_22`, `_334`), read as its task loader reads
 * them: an object of scenarios keyed by ID (`"flight:4-138|rental_car:4-122"`), each
 *   { scenario, dimensions: [aspect…], wanted_num, initial_description,
 *     <aspect>: { preferences: [[aspect, subcategory, preference, implicit_elicitation, …]…],
 *                 correct_ids, best_id, arguments, options: { correct: [..], wrong: [..], noise: [..] } } }.
 * As the loader does, each option list is shuffled, the options mixed and shuffled again, and their `type` and
 * `reason` fields (the answer key) removed. Every option is kept: UserRL's training builds TravelGym in "single" mode,
 * whose get_task_by_id calls load_tasks() without the config, so its cut of wrong options to 10 and noise to 5 (the
 * config's wrong_choice_number / noise_choice_number, applied only in "random" mode) never happens there. The shuffles use the
 * project's seeded PRNG keyed by the scenario ID (TravelGym: numpy seeded once with 42), so the options a task shows
 * are the same on every load. Keywords for the offline judge come from each preference's subcategory.
 */
import { fnv1a32, mulberry32 } from "../../../lib/seeded-random";
import { DatasetError } from "../types";
import { contentWords } from "./keyword-match";
import { TRAVEL_ASPECTS } from "./travel-aspects";

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

export function isTravelGymFile(raw: unknown): boolean {
  return isRecord(raw) && Object.values(raw).some((s) => isRecord(s) && "initial_description" in s && "dimensions" in s);
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function optionList(value: unknown, file: string, id: string, where: string): Raw[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isRecord)) throw new DatasetError(file, id, `${where} must be a list of option objects`);
  return value;
}

function aspectTask(id: string, aspect: string, d: Raw, file: string, random: () => number): Raw {
  const where = (field: string) => `${aspect}.${field}`;
  const rows = Array.isArray(d.preferences) ? d.preferences : [];
  const preferences = rows.map((row, i) => {
    if (!Array.isArray(row) || row.length < 4 || !row.slice(0, 4).every((x) => typeof x === "string")) {
      throw new DatasetError(file, id, `${where(`preferences.${i}`)} must be [aspect, subcategory, preference, implicit_elicitation, …]`);
    }
    const [, subcategory, preference, implicitElicitation] = row as string[];
    const words = contentWords(subcategory.replace(/_/g, " "), 3);
    return {
      subcategory,
      preference,
      implicitElicitation,
      keywords: words.length ? words : [subcategory.replace(/_/g, " ").toLowerCase()],
    };
  });
  const options = isRecord(d.options) ? d.options : {};
  const correct = shuffled(optionList(options.correct, file, id, where("options.correct")), random);
  const wrong = shuffled(optionList(options.wrong, file, id, where("options.wrong")), random);
  const noise = shuffled(optionList(options.noise, file, id, where("options.noise")), random);
  const shown = shuffled([...correct, ...wrong, ...noise], random).map(({ type: _type, reason: _reason, ...rest }) => rest);
  return {
    name: aspect,
    arguments: isRecord(d.arguments) ? d.arguments : {},
    preferences,
    bestId: typeof d.best_id === "string" ? d.best_id : "",
    correctIds: Array.isArray(d.correct_ids) ? d.correct_ids : [],
    options: shown,
  };
}

/** TravelGym's scenarios as this gym's task records (validated afterwards by the gym's schema). */
export function travelTasksFromUserRl(raw: Raw, file: string): Raw[] {
  return Object.entries(raw).map(([id, s]) => {
    if (!isRecord(s)) throw new DatasetError(file, id, "a scenario must be an object");
    const dimensions = s.dimensions;
    if (!Array.isArray(dimensions) || dimensions.length === 0 || !dimensions.every((x) => typeof x === "string")) {
      throw new DatasetError(file, id, "dimensions must be a non-empty list of travel aspects");
    }
    const unknown = dimensions.find((a) => !(TRAVEL_ASPECTS as readonly string[]).includes(a));
    if (unknown) throw new DatasetError(file, id, `unknown travel aspect "${unknown}" in dimensions (valid: ${TRAVEL_ASPECTS.join(", ")})`);
    const random = mulberry32(fnv1a32(id));
    const aspects = dimensions.map((aspect) => {
      const d = s[aspect];
      if (!isRecord(d)) throw new DatasetError(file, id, `dimension "${aspect}" has no entry of its own`);
      return aspectTask(id, aspect, d, file, random);
    });
    return { id, scenario: String(s.scenario ?? ""), request: String(s.initial_description ?? ""), aspects };
  });
}
