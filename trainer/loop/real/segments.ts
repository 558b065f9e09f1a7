/**
 * A sample's per-token arrays cut into the renderings of its episode (PolicySample.segmentStarts): where the chat
 * template was not prefix-stable, each rendering is a sequence of its own for every forward pass over it.
 */
export function bySegment<T>(values: readonly T[], starts: readonly number[]): T[][] {
  const bounds = starts.length ? starts : [0];
  return bounds.map((start, k) => values.slice(start, bounds[k + 1] ?? values.length));
}
