/**
 * Canonical forms for slot values, so the tool mocker and the goal check accept the same value written differently
 * ("5:30 pm" = "17:30", "March 11th" = "2019-03-11", "$1,200" = "1200", " San  Jose " = "san jose"). SGD's own
 * service calls are canonical (24-hour times, ISO dates in March 2019), while users and policies speak naturally.
 */

const NUMBER_WORDS: Record<string, string> = {
  zero: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
  ten: "10",
  eleven: "11",
  twelve: "12",
};
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
/** SGD dialogues are set in March 2019 ("today" = 2019-03-01), so a date without a year means 2019. */
const DEFAULT_YEAR = "2019";

const pad = (n: number): string => String(n).padStart(2, "0");

function normalizeTime(v: string): string | null {
  if (v === "noon" || v === "midday") return "12:00";
  if (v === "midnight") return "00:00";
  const m = /^(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.?|p\.m\.?)?$/.exec(v);
  if (!m) return null;
  const hasColon = m[2] !== undefined;
  const suffix = m[3]?.replace(/\./g, "");
  if (!hasColon && !suffix) return null; // a bare number is a count, not a time
  let h = Number(m[1]);
  const min = Number(m[2] ?? "0");
  if (h > 23 || min > 59) return null;
  if (suffix === "pm" && h < 12) h += 12;
  if (suffix === "am" && h === 12) h = 0;
  return `${pad(h)}:${pad(min)}`;
}

function monthIndex(word: string): number {
  return MONTHS.indexOf(word.slice(0, 3));
}

function normalizeDate(v: string): string | null {
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(v);
  if (m) return `${m[1]}-${pad(Number(m[2]))}-${pad(Number(m[3]))}`;
  // "march 11th", "march 11, 2019", "11th of march", "11 march 2019"
  m = /^([a-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?$/.exec(v);
  if (m && monthIndex(m[1]) >= 0) return `${m[3] ?? DEFAULT_YEAR}-${pad(monthIndex(m[1]) + 1)}-${pad(Number(m[2]))}`;
  m = /^(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]+)(?:,?\s+(\d{4}))?$/.exec(v);
  if (m && monthIndex(m[2]) >= 0) return `${m[3] ?? DEFAULT_YEAR}-${pad(monthIndex(m[2]) + 1)}-${pad(Number(m[1]))}`;
  return null;
}

function normalizeNumber(v: string): string | null {
  if (NUMBER_WORDS[v]) return NUMBER_WORDS[v];
  const stripped = v
    .replace(/^\$/, "")
    .replace(/,/g, "")
    .replace(/\s*(dollars|usd|people|persons|guests)$/, "");
  if (!/^-?\d+(\.\d+)?$/.test(stripped)) return null;
  return String(Number(stripped));
}

/** The canonical, comparable form of one slot value. */
export function normalizeSlotValue(value: unknown): string {
  let v = String(value ?? "")
    .toLowerCase()
    .trim()
    .replace(/\s+/g, " ")
    .replace(/[.!?]+$/, "");
  v = v.replace(/^(the|a)\s+/, "");
  if (v === "true" || v === "yes") return "true";
  if (v === "false" || v === "no") return "false";
  if (v === "dontcare" || v === "don't care" || v === "any" || v === "doesn't matter") return "dontcare";
  return normalizeTime(v) ?? normalizeDate(v) ?? normalizeNumber(v) ?? v;
}

/** Parameters with every value canonical and every optional slot the caller left out set to its default. */
export function canonicalParameters(
  params: Record<string, unknown>,
  optionalDefaults: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, d] of Object.entries(optionalDefaults)) out[k] = normalizeSlotValue(d);
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "") continue;
    out[k.trim().toLowerCase()] = normalizeSlotValue(v);
  }
  return out;
}

/** Stable key of a canonical parameter set: insensitive to key order. */
export function parameterKey(canonical: Record<string, string>): string {
  return Object.keys(canonical)
    .sort()
    .map((k) => `${k}=${canonical[k]}`)
    .join("|");
}
