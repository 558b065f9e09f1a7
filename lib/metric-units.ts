/**
 * The unit of each metric key the trainer records (GUIDE: slash-namespaced, stable keys), for chart captions and
 * tooltips. Exact keys first, then rules on the key's shape; a key no rule covers (rewards, losses, ratios) is a
 * plain number and gets no unit rather than a guessed one.
 */
export interface MetricUnit {
  /** Short form after a value: "s", "ms", "USD", "tokens". */
  unit: string;
  /** What it measures, for a caption's title. */
  description: string;
}

const EXACT: Record<string, MetricUnit> = {
  kl: { unit: "nats", description: "KL to the reference per token" },
  entropy: { unit: "nats", description: "policy entropy per token" },
  "env/turns_mean": { unit: "turns", description: "policy turns per episode" },
  "train/samples": { unit: "episodes", description: "episodes trained on" },
  "grad/norm": { unit: "L2", description: "gradient norm before clipping" },
  "curriculum/stage": { unit: "stage", description: "curriculum stage index" },
};

const RULES: [RegExp, MetricUnit][] = [
  [/_ms$/, { unit: "ms", description: "milliseconds" }],
  [/^time\/|_s$/, { unit: "s", description: "seconds" }],
  [/cost_usd$/, { unit: "USD", description: "US dollars" }],
  [/(^|\/|_)frac(_|$)/, { unit: "fraction", description: "share between 0 and 1" }],
  [/^response\/length|tokens/, { unit: "tokens", description: "tokens" }],
  [/(^|\/)calls(_|$)/, { unit: "calls", description: "LLM calls" }],
  [/^llm\/(errors|retries|cached)$/, { unit: "calls", description: "LLM calls" }],
  [/^dapo\/groups_/, { unit: "groups", description: "task groups" }],
  [/^(kl|entropy)\//, { unit: "nats", description: "nats per token" }],
];

export function metricUnit(key: string): MetricUnit | null {
  return EXACT[key] ?? RULES.find(([pattern]) => pattern.test(key))?.[1] ?? null;
}
