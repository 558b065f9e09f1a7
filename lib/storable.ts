/**
 * Text PostgreSQL can store. A NUL character is refused in `text` and `jsonb` ("invalid byte sequence" /
 * "unsupported Unicode escape sequence"), and a lone UTF-16 surrogate is refused in jsonb; both reach us from
 * binary files (an error quoting a dataset), policy samples and LLM replies. A refused write of a run's failure left
 * the run re-claimed every lease period until "a worker died … 11 times", so everything the trainer stores goes
 * through here: NUL and lone surrogates become U+FFFD, the replacement character (an untrained byte-level policy
 * emits NUL freely; its turns are recorded with U+FFFD in its place).
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function storableText(s: string): string {
  return s.replace(LONE_SURROGATE, "\uFFFD").replaceAll("\0", "\uFFFD");
}

/** A deep copy of `value` with every string (values and object keys) made storable; other values unchanged. */
export function storable<T>(value: T): T {
  if (typeof value === "string") return storableText(value) as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[storableText(k)] = storable(v);
    return out as T;
  }
  return value;
}
