/**
 * Keyword matching used by the offline (rule-based) users of the gyms. A keyword matches at a word start and may
 * continue ("mammal" matches "mammals"), case-insensitively; multi-word keywords match as phrases.
 */
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function mentionsKeyword(text: string, keyword: string): boolean {
  return new RegExp(`\\b${escape(keyword.toLowerCase().trim())}`, "i").test(text.toLowerCase());
}

export function countKeywordHits(text: string, keywords: readonly string[]): number {
  return keywords.filter((k) => mentionsKeyword(text, k)).length;
}

/** Index of the item with most keyword hits (first wins ties), or -1 when nothing matches. */
export function bestKeywordMatch<T extends { keywords: string[] }>(text: string, items: readonly T[]): number {
  let best = -1;
  let bestHits = 0;
  items.forEach((item, i) => {
    const hits = countKeywordHits(text, item.keywords);
    if (hits > bestHits) {
      best = i;
      bestHits = hits;
    }
  });
  return best;
}

/** Reads a Yes / No / Maybe / Irrelevant verdict out of an LLM reply (JSON {"response": ...} or plain text). */
export function readVerdict<T extends string>(text: string, allowed: readonly T[], fallback: T): T {
  let candidate = text;
  const m = /\{[\s\S]*\}/.exec(text);
  if (m) {
    try {
      const v = JSON.parse(m[0]) as Record<string, unknown>;
      const field = v.response ?? v.answer ?? v.judgment;
      if (typeof field === "string") candidate = field;
    } catch {
      // fall through to plain-text reading
    }
  }
  const lower = candidate.trim().toLowerCase();
  return allowed.find((a) => lower.startsWith(a.toLowerCase())) ?? fallback;
}

const STOPWORDS = new Set(
  "the and for with that this from into your you are was were has have had not but its it's their there they them what which who whom when where why how also about over under than then very much many more most some such only just like known famous".split(
    " ",
  ),
);

/** Content words of a text (lower case, 4+ letters, no stop words), in order, without repeats. */
export function contentWords(text: string, limit = 12): string[] {
  const words = (text.toLowerCase().match(/[a-z][a-z'-]{3,}/g) ?? []).filter((w) => !STOPWORDS.has(w));
  return [...new Set(words)].slice(0, limit);
}
