/**
 * Agent Gym's tool mocker: the policy's service calls are answered from the `service_results` SGD recorded for the
 * same method and parameters, so no live backend or LLM is needed to play the tools. Matching is tolerant of
 * parameter order and value formatting (see normalize-slot-value.ts) and fills omitted optional slots with the
 * schema defaults. A search (non-transactional intent) with no exact recording is answered by filtering every
 * recorded row of that method. Then agent_gym's fallbacks: the recording of the same method whose parameters
 * overlap most, when they overlap by at least half (`fuzzy`: over the union of parameter names, an equal value
 * counts 1 and one contained in the other ½ — agent_gym's `_compute_match_score`), the dialogue's own recordings
 * first; and for a call that matches nothing, an LLM mocker (the episode's, see sgd-episode.ts). Every answer
 * records how it was matched.
 */
import type { SgdIntent, SgdService } from "./sgd-format";
import type { RecordedCall } from "./sgd-task";
import { canonicalParameters, normalizeSlotValue, parameterKey } from "./normalize-slot-value";

export type MockMatch = "exact" | "filtered" | "fuzzy" | "llm";

export type MockResponse =
  | { ok: true; service: string; method: string; results: Record<string, string>[]; match: MockMatch; score?: number }
  | {
      ok: false;
      error: string;
      service?: string;
      method?: string;
      /** A valid call that no recording answers: an LLM mocker may answer it; `examples` are the method's recordings. */
      unmatched?: { examples: RecordedCall[] };
    };

/** agent_gym's parameter overlap: over the union of names, equal values count 1, one containing the other ½. */
export function parameterOverlap(query: Record<string, string>, recorded: Record<string, string>): number {
  const keys = new Set([...Object.keys(query), ...Object.keys(recorded)]);
  if (keys.size === 0) return 1;
  let matches = 0;
  for (const k of keys) {
    const q = query[k] ?? "";
    const r = recorded[k] ?? "";
    if (q === r) matches += 1;
    else if (q && r && (q.includes(r) || r.includes(q))) matches += 0.5;
  }
  return matches / keys.size;
}

/** The least overlap agent_gym accepts for a fuzzy match. */
export const FUZZY_MIN_OVERLAP = 0.5;

export interface ToolMocker {
  call(name: string, args: Record<string, unknown>): MockResponse;
}

interface Resolved {
  service: SgdService;
  intent: SgdIntent;
}

/** Accepts `FindRestaurants`, `Restaurants_1.FindRestaurants` or `Restaurants_1__FindRestaurants`. */
function resolveMethod(services: SgdService[], name: string): Resolved | string {
  const trimmed = name.trim();
  const [svcName, method] = /[.]|__/.test(trimmed) ? trimmed.split(/\.|__/, 2) : [null, trimmed];
  const candidates = services.flatMap((service) =>
    service.intents
      .filter((intent) => intent.name.toLowerCase() === method.toLowerCase())
      .filter(() => svcName === null || service.name.toLowerCase() === svcName.toLowerCase())
      .map((intent) => ({ service, intent })),
  );
  const available = services.flatMap((s) => s.intents.map((i) => i.name)).join(", ");
  if (candidates.length === 0) return `unknown function "${name}"; available functions: ${available}`;
  if (candidates.length > 1) {
    return `"${name}" is ambiguous; qualify it as ${candidates.map((c) => `${c.service.name}.${c.intent.name}`).join(" or ")}`;
  }
  return candidates[0];
}

/**
 * `own`: the dialogue's own recordings; `extra`: others the mocker may fall back on (e.g. the whole corpus). When
 * several recordings answer the same call, the dialogue's own wins, then the first seen: measured on SGD's test split, 7 of
 * 200 recorded calls were otherwise answered with another dialogue's results, making those users' goals unreachable.
 */
export function createToolMocker(
  services: SgdService[],
  own: RecordedCall[],
  extra: RecordedCall[] = [],
  opts: { fuzzy?: boolean } = {},
): ToolMocker {
  const recorded = [...own, ...extra];
  const fuzzy = opts.fuzzy ?? true;
  const exact = new Map<string, Record<string, string>[]>();
  const rowsByMethod = new Map<string, Record<string, string>[]>();
  const defaultsOf = (service: string, method: string): Record<string, string> =>
    services.find((s) => s.name === service)?.intents.find((i) => i.name === method)?.optionalSlots ?? {};
  const seenRows = new Set<string>();
  for (const c of recorded) {
    const key = `${c.service}.${c.method}`;
    const exactKey = `${key}|${parameterKey(canonicalParameters(c.parameters, defaultsOf(c.service, c.method)))}`;
    if (!exact.has(exactKey)) exact.set(exactKey, c.results);
    const rows = rowsByMethod.get(key) ?? [];
    for (const r of c.results) {
      const rowKey = `${key}|${JSON.stringify(r)}`;
      if (!seenRows.has(rowKey)) {
        seenRows.add(rowKey);
        rows.push(r);
      }
    }
    rowsByMethod.set(key, rows);
  }

  return {
    call(name, args) {
      const resolved = resolveMethod(services, name);
      if (typeof resolved === "string") return { ok: false, error: resolved };
      const { service, intent } = resolved;
      const base = { service: service.name, method: intent.name };
      const known = new Set([...intent.requiredSlots, ...Object.keys(intent.optionalSlots)]);
      const unknown = Object.keys(args).filter((k) => !known.has(k.trim().toLowerCase()));
      if (unknown.length > 0) {
        return { ...base, ok: false, error: `${intent.name} has no parameter ${unknown.join(", ")}; it takes ${[...known].join(", ")}` };
      }
      const given = canonicalParameters(args);
      const missing = intent.requiredSlots.filter((s) => !(s in given));
      if (missing.length > 0) return { ...base, ok: false, error: `${intent.name} is missing required ${missing.join(", ")}` };

      const canonical = canonicalParameters(args, intent.optionalSlots);
      const key = `${service.name}.${intent.name}`;
      const hit = exact.get(`${key}|${parameterKey(canonical)}`);
      if (hit) return { ...base, ok: true, results: hit, match: "exact" };
      if (!intent.isTransactional) {
        const constraints = Object.entries(canonical).filter(([, v]) => v !== "dontcare");
        const rows = (rowsByMethod.get(key) ?? []).filter((row) =>
          constraints.every(([k, v]) => !(k in row) || normalizeSlotValue(row[k]) === v),
        );
        if (rows.length > 0) return { ...base, ok: true, results: rows, match: "filtered" };
      }
      const sameMethod = recorded.filter((c) => c.service === service.name && c.method === intent.name);
      if (fuzzy) {
        let best: { call: RecordedCall; score: number } | null = null;
        for (const c of sameMethod) {
          // As agent_gym: the parameters as given (schema defaults would inflate the overlap of unrelated calls).
          const score = parameterOverlap(given, canonicalParameters(c.parameters));
          if (score >= FUZZY_MIN_OVERLAP && (best === null || score > best.score)) best = { call: c, score };
        }
        if (best) return { ...base, ok: true, results: best.call.results, match: "fuzzy", score: best.score };
      }
      return {
        ...base,
        ok: false,
        error: `no recorded ${intent.isTransactional ? "transaction" : "result"} for ${intent.name} with ${JSON.stringify(args)}; check the slot values with the user`,
        unmatched: { examples: sameMethod.slice(0, 3) },
      };
    },
  };
}
