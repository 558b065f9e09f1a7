/**
 * Where the samples of one GRPO group part ways. All samples of a group answer the same task from the same
 * prompt, so their conversations share a prefix (the system prompt, the simulated user's opening, often the
 * first actions) and then branch; GRPO's advantage is only informative about the part after the branch, which
 * is what the group view highlights. Pure: no I/O.
 */
import type { ConversationMessage } from "./conversation";
import { canonicalJson } from "./canonical-json";

type Comparable = Pick<ConversationMessage, "role" | "source" | "content" | "toolCalls" | "name">;

/**
 * Two messages are "the same step" when the author, text and tool calls match. Bookkeeping that differs between
 * samples even for identical behaviour is ignored: tool-call ids, LLM call ids, token counts, turn rewards and
 * advantages (the latter are consequences of the divergence, not part of it).
 */
export function messagesEqual(a: Comparable, b: Comparable): boolean {
  if (a.role !== b.role || a.source !== b.source || a.content !== b.content || (a.name ?? null) !== (b.name ?? null)) return false;
  const calls = (m: Comparable) => canonicalJson((m.toolCalls ?? []).map((c) => ({ name: c.name, arguments: c.arguments })));
  return calls(a) === calls(b);
}

/**
 * Index of the first message where `a` and `b` differ; when one is a prefix of the other, the length of the
 * shorter one (the point where one goes on and the other has stopped). null when identical.
 */
export function firstDifference(a: readonly Comparable[], b: readonly Comparable[]): number | null {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (!messagesEqual(a[i], b[i])) return i;
  return a.length === b.length ? null : n;
}

export interface SampleDivergence {
  /** First index where this sample stops matching at least one sibling (null: identical to every sibling). */
  divergesAt: number | null;
  /** First index from which no sibling shares this sample's path (null: some sibling is an exact duplicate). */
  uniqueFrom: number | null;
}

/**
 * For each sample, where it diverges from the others. Messages before `divergesAt` are shared by the whole group;
 * from `uniqueFrom` on, the sample is on its own. With a single sample there is nothing to diverge from.
 */
export function groupDivergence(samples: readonly (readonly Comparable[])[]): SampleDivergence[] {
  return samples.map((sample, i) => {
    const diffs = samples.filter((_, j) => j !== i).map((other) => firstDifference(sample, other));
    if (diffs.length === 0) return { divergesAt: null, uniqueFrom: null };
    const differing = diffs.filter((d): d is number => d !== null);
    return {
      divergesAt: differing.length ? Math.min(...differing) : null,
      uniqueFrom: differing.length === diffs.length ? Math.max(...differing) : null,
    };
  });
}

/** Number of leading messages identical across all samples. */
export function commonPrefixLength(samples: readonly (readonly Comparable[])[]): number {
  if (samples.length === 0) return 0;
  let n = Math.min(...samples.map((s) => s.length));
  for (let j = 1; j < samples.length; j++) {
    const d = firstDifference(samples[0].slice(0, n), samples[j].slice(0, n));
    if (d !== null) n = d;
  }
  return n;
}
