/**
 * Agent Gym's tool mocker: the policy's service calls are answered from the `service_results` SGD recorded, so no
 * live backend is needed to play the tools. By default in agent_gym's order (`LLMToolMocker.call`, the mocker its
 * `create_environment` builds), checked against its own code on 296 perturbed real calls
 * (agent-gym-mocker-parity.test.ts):
 *   1. a recording with exactly these parameters (Python's dict equality: values as given);
 *   2. `fuzzy`: the recording whose parameters overlap most, if by ≥ 0.8 (agent_gym's `_compute_match_score`: over
 *      the union of parameter names, an equal lower-cased value counts 1, one contained in the other ½);
 *   3. the LLM mocker (llm-mocker.ts), when it returns rows;
 *   4. `fuzzy` again at ≥ 0.5;
 *   5. `first`: the method's first recording; else an empty result.
 * Parameter names are not checked against the schema (an unknown one just lowers the overlap), as in agent_gym.
 *
 * Kept on purpose: an exact match prefers the dialogue's own recording to another dialogue's of the same call (so a
 * user's goal stays reachable; the fallbacks go in agent_gym's corpus order); an unknown or ambiguous function name is a tool error naming the functions (agent_gym answers []); recordings are
 * per service (agent_gym indexes by method name alone).
 *
 * `matching: "tolerant"` is this project's earlier matcher: parameter names checked, values compared in canonical
 * form with schema defaults filled (normalize-slot-value.ts), and a search with no exact recording answered by
 * filtering the method's recorded rows (`filtered`), before the same fallbacks.
 */
import type { SgdIntent, SgdService } from "./sgd-format";
import type { RecordedCall } from "./sgd-task";
import { canonicalParameters, normalizeSlotValue, parameterKey } from "./normalize-slot-value";
import { pythonEquals, pythonStr } from "../../../lib/python-values";

export type MockMatch = "exact" | "filtered" | "fuzzy" | "llm" | "first" | "none";

export type MockResponse =
  | {
      ok: true;
      service: string;
      method: string;
      results: Record<string, string>[];
      match: MockMatch;
      score?: number;
      /** The LLM mocker's calls, whether or not its rows were used. */
      llmCallIds?: string[];
    }
  | { ok: false; error: string; service?: string; method?: string; llmCallIds?: string[] };

/** The LLM mocker for a call no recording answers closely: its rows, or null when it has none to offer. */
export type LlmMockStage = (call: {
  service: string;
  intent: SgdIntent;
  args: Record<string, unknown>;
  examples: RecordedCall[];
}) => Promise<{ rows: Record<string, string>[] | null; callId: string }>;

export interface ToolMockerOptions {
  /** "agent_gym" (default) or "tolerant" (see above). */
  matching?: "agent_gym" | "tolerant";
  /** agent_gym's fuzzy stages (default true). */
  fuzzy?: boolean;
  /** agent_gym's last resort, the method's first recording (default true); without it an unanswered call is an error. */
  anyRecording?: boolean;
}

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

/** The overlaps agent_gym accepts before and after asking its LLM mocker. */
export const FUZZY_HIGH_OVERLAP = 0.8;
export const FUZZY_MIN_OVERLAP = 0.5;

export interface ToolMocker {
  call(name: string, args: Record<string, unknown>, llm?: LlmMockStage): Promise<MockResponse>;
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

/** Values as agent_gym's overlap compares them: `str(value).lower()`. */
const loweredStrings = (params: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, pythonStr(v).toLowerCase()]));

/**
 * `own`: the dialogue's own recordings; `extra`: others the mocker may fall back on (e.g. the whole corpus). When
 * several recordings match a call exactly, the dialogue's own wins, then the first seen: measured on SGD's test split,
 * 7 of 200 recorded calls were otherwise answered with another dialogue's results, making those users' goals
 * unreachable.
 */
export function createToolMocker(
  services: SgdService[],
  own: RecordedCall[],
  extra: RecordedCall[] = [],
  opts: ToolMockerOptions = {},
): ToolMocker {
  const recorded = [...own, ...extra];
  // The fallbacks go through the recordings in agent_gym's (corpus) order; the task's own come last, for a task
  // played without its corpus.
  const corpusOrder = [...extra, ...own];
  const fuzzy = opts.fuzzy ?? true;
  const anyRecording = opts.anyRecording ?? true;
  const tolerant = opts.matching === "tolerant" ? tolerantMatcher(services, recorded) : null;

  return {
    async call(name, args, llm) {
      const resolved = resolveMethod(services, name);
      if (typeof resolved === "string") return { ok: false, error: resolved };
      const { service, intent } = resolved;
      const base = { service: service.name, method: intent.name };
      const ofMethod = (c: RecordedCall) => c.service === service.name && c.method === intent.name;
      const sameMethod = recorded.filter(ofMethod);
      const inCorpusOrder = corpusOrder.filter(ofMethod);

      let overlapOf: (c: RecordedCall) => number;
      if (tolerant) {
        const early = tolerant(intent, service, args);
        if (early) return { ...base, ...early };
        // The parameters as given (schema defaults would inflate the overlap of unrelated calls).
        const given = canonicalParameters(args);
        overlapOf = (c) => parameterOverlap(given, canonicalParameters(c.parameters));
      } else {
        const exact = sameMethod.find((c) => pythonEquals(c.parameters, args));
        if (exact) return { ...base, ok: true, results: exact.results, match: "exact" };
        const query = loweredStrings(args);
        overlapOf = (c) => parameterOverlap(query, loweredStrings(c.parameters));
      }
      const closest = (least: number): { call: RecordedCall; score: number } | null => {
        let best: { call: RecordedCall; score: number } | null = null;
        for (const c of inCorpusOrder) {
          const score = overlapOf(c);
          if (score >= least && (best === null || score > best.score)) best = { call: c, score };
        }
        return best;
      };
      const close = fuzzy ? closest(FUZZY_HIGH_OVERLAP) : null;
      if (close) return { ...base, ok: true, results: close.call.results, match: "fuzzy", score: close.score };
      let llmCallIds: string[] | undefined;
      if (llm) {
        const invented = await llm({ ...base, intent, args, examples: sameMethod.slice(0, 3) });
        llmCallIds = [invented.callId];
        if (invented.rows?.length) return { ...base, ok: true, results: invented.rows, match: "llm", llmCallIds };
      }
      const partial = fuzzy ? closest(FUZZY_MIN_OVERLAP) : null;
      if (partial) return { ...base, ok: true, results: partial.call.results, match: "fuzzy", score: partial.score, llmCallIds };
      if (anyRecording) {
        return inCorpusOrder[0]
          ? { ...base, ok: true, results: inCorpusOrder[0].results, match: "first", llmCallIds }
          : { ...base, ok: true, results: [], match: "none", llmCallIds };
      }
      return {
        ...base,
        ok: false,
        error: `no recorded ${intent.isTransactional ? "transaction" : "result"} for ${intent.name} with ${JSON.stringify(args)}; check the slot values with the user`,
        llmCallIds,
      };
    },
  };
}

/**
 * The tolerant matcher's own stages, before the shared fallbacks: a clear error for an unknown or missing parameter,
 * the recording with the same canonical parameters, or the search's recorded rows that satisfy the call.
 */
function tolerantMatcher(services: SgdService[], recorded: RecordedCall[]) {
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
  type Early = { ok: true; results: Record<string, string>[]; match: MockMatch } | { ok: false; error: string };
  return (intent: SgdIntent, service: SgdService, args: Record<string, unknown>): Early | null => {
    const known = new Set([...intent.requiredSlots, ...Object.keys(intent.optionalSlots)]);
    const unknown = Object.keys(args).filter((k) => !known.has(k.trim().toLowerCase()));
    if (unknown.length > 0)
      return { ok: false, error: `${intent.name} has no parameter ${unknown.join(", ")}; it takes ${[...known].join(", ")}` };
    const given = canonicalParameters(args);
    const missing = intent.requiredSlots.filter((s) => !(s in given));
    if (missing.length > 0) return { ok: false, error: `${intent.name} is missing required ${missing.join(", ")}` };
    const canonical = canonicalParameters(args, intent.optionalSlots);
    const key = `${service.name}.${intent.name}`;
    const hit = exact.get(`${key}|${parameterKey(canonical)}`);
    if (hit) return { ok: true, results: hit, match: "exact" };
    if (intent.isTransactional) return null;
    const constraints = Object.entries(canonical).filter(([, v]) => v !== "dontcare");
    const rows = (rowsByMethod.get(key) ?? []).filter((row) =>
      constraints.every(([k, v]) => !(k in row) || normalizeSlotValue(row[k]) === v),
    );
    return rows.length > 0 ? { ok: true, results: rows, match: "filtered" } : null;
  };
}
