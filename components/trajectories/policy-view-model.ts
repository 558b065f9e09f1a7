/**
 * What the policy view draws, computed without React: which per-token metrics a trajectory has, each token's value
 * and colour, the sequence cut into context / reply segments with long context folded, and the summary line.
 */
import { CLIP_CODES, type PolicyTokens } from "@/lib/policy-tokens";

export type TokenMetric = "logprob" | "advantage" | "ratio" | "kl";

export const METRIC_LABELS: Record<TokenMetric, string> = {
  logprob: "log-prob",
  advantage: "advantage",
  ratio: "ratio π/π_old",
  kl: "KL to reference",
};

/** The metrics this trajectory recorded, most telling first (what the update did, then how sure the policy was). */
export function availableMetrics(t: PolicyTokens): TokenMetric[] {
  const out: TokenMetric[] = [];
  if (t.update) out.push("advantage");
  if (t.logprobs) out.push("logprob");
  if (t.update?.ratio) out.push("ratio");
  if (t.update?.kl) out.push("kl");
  return out;
}

/** Per token, the metric's value; null for context tokens and tokens the metric was not computed for. */
export function metricValues(t: PolicyTokens, metric: TokenMetric): (number | null)[] {
  const pick = (values: readonly (number | null)[] | null | undefined) =>
    t.ids.map((_, i) => (t.sampled[i] > 0 && values ? (values[i] ?? null) : null));
  switch (metric) {
    case "logprob":
      return pick(t.logprobs);
    case "advantage":
      return pick(t.update?.advantages);
    case "ratio":
      return pick(t.update?.ratio);
    case "kl":
      return pick(t.update?.kl);
  }
}

/**
 * The value that maps to full colour: the largest magnitude present, so one trajectory's differences show (a
 * run-wide scale would wash out most of them). Ratios scale on |log r|; a near-zero spread gets a floor so that
 * rounding noise is not painted as signal.
 */
export function colourScale(metric: TokenMetric, values: readonly (number | null)[]): number {
  let max = 0;
  for (const v of values) if (v !== null) max = Math.max(max, Math.abs(metric === "ratio" ? Math.log(v) : v));
  const floor = { logprob: 1, advantage: 1e-3, ratio: 0.01, kl: 1e-3 }[metric];
  return Math.max(max, floor);
}

/**
 * Background colour of a sampled token. Advantage and ratio diverge (green: pushed up / grew, red: pushed down /
 * shrank); a log-prob shades red as the token gets less likely (surprising samples); KL shades orange.
 */
export function tokenColour(metric: TokenMetric, value: number | null, scale: number): string | undefined {
  if (value === null) return undefined;
  const alpha = (x: number) => Math.min(1, Math.abs(x) / scale) * 0.75 + 0.08;
  switch (metric) {
    case "advantage":
      return value >= 0 ? `rgba(22, 163, 74, ${alpha(value)})` : `rgba(220, 38, 38, ${alpha(value)})`;
    case "ratio": {
      const l = Math.log(value);
      return l >= 0 ? `rgba(22, 163, 74, ${alpha(l)})` : `rgba(220, 38, 38, ${alpha(l)})`;
    }
    case "logprob":
      return `rgba(220, 38, 38, ${alpha(value)})`;
    case "kl":
      return `rgba(234, 88, 12, ${alpha(value)})`;
  }
}

export interface TokenSegment {
  kind: "context" | "reply";
  /** Token index range [start, end). */
  start: number;
  end: number;
  /** The policy turn of a reply segment. */
  turn: number | null;
  /** For a long context segment: the range folded away until the user opens it. */
  folded: { start: number; end: number } | null;
  /** The segment opens a re-rendering of the conversation (PolicyTokens.rerenderedAt). */
  rerendered?: boolean;
}

/** Context longer than this folds its middle (system prompts and tool schemas run to thousands of tokens). */
export const FOLD_ABOVE = 160;
const KEEP_HEAD = 24;
/** The end of a context segment is what the reply follows (the last message and the generation prompt): keep more. */
const KEEP_TAIL = 64;

/**
 * The sequence cut where it switches between context and a reply (or between two replies' turns), and where the
 * chat template re-rendered the conversation.
 */
export function tokenSegments(t: PolicyTokens): TokenSegment[] {
  const segments: TokenSegment[] = [];
  const rerendered = new Set(t.rerenderedAt ?? []);
  let start = 0;
  for (let i = 1; i <= t.ids.length; i++) {
    const boundary = i === t.ids.length || t.sampled[i] !== t.sampled[start] || t.turns[i] !== t.turns[start] || rerendered.has(i);
    if (!boundary) continue;
    const reply = t.sampled[start] > 0;
    const long = !reply && i - start > FOLD_ABOVE;
    segments.push({
      kind: reply ? "reply" : "context",
      start,
      end: i,
      turn: reply ? t.turns[start] : null,
      folded: long ? { start: start + KEEP_HEAD, end: i - KEEP_TAIL } : null,
      ...(rerendered.has(start) && { rerendered: true }),
    });
    start = i;
  }
  return segments;
}

export interface PolicyViewSummary {
  tokens: number;
  sampled: number;
  /** exp(−mean log-prob) over sampled tokens: how surprised the policy was by its own samples. */
  perplexity: number | null;
  /** Sampled tokens on which the PPO clip (or the dual-clip cap) bound at the update's last pass. */
  clipped: number;
  dualClipped: number;
}

export function summarize(t: PolicyTokens): PolicyViewSummary {
  let sampled = 0;
  let lpSum = 0;
  let clipped = 0;
  let dualClipped = 0;
  t.ids.forEach((_, i) => {
    if (t.sampled[i] <= 0) return;
    sampled++;
    lpSum += t.logprobs?.[i] ?? 0;
    const code = t.update?.clipped?.[i] ?? CLIP_CODES.none;
    if (code === CLIP_CODES.clipped) clipped++;
    if (code === CLIP_CODES.dualClipped) dualClipped++;
  });
  return {
    tokens: t.ids.length,
    sampled,
    perplexity: t.logprobs && sampled ? Math.exp(-lpSum / sampled) : null,
    clipped,
    dualClipped,
  };
}

/** How a token's text is shown: whitespace made visible, chat-template markers recognisable. */
export function displayPiece(piece: string): { text: string; special: boolean; newline: boolean } {
  if (/^<\|[^|]+\|>$/.test(piece)) return { text: piece, special: true, newline: false };
  const newline = piece.endsWith("\n");
  const text = piece.replace(/\n/g, "↵").replace(/\t/g, "→");
  return { text, special: false, newline };
}
