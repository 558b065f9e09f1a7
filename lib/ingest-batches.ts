/**
 * Splits imported steps or trajectories into ingest batches: by count (the API's per-batch limits) and by
 * serialized size, so one huge conversation never makes a request larger than the API accepts. Shared by
 * `rollout-lab import` and the dashboard's upload page.
 */

/** Stay well under the server's 1 MiB request limit. */
export const MAX_BATCH_BYTES = 700_000;

const encoder = new TextEncoder();

export function ingestBatches<T>(items: T[], maxCount: number, maxBytes = MAX_BATCH_BYTES): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = encoder.encode(JSON.stringify(item)).length;
    if (current.length && (current.length >= maxCount || bytes + size > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}
