/**
 * The project's one seeded PRNG and one string hash, so every reproducible stream (sampling, data order, fake
 * server faults, offline simulators, fixtures) is the same algorithm on every platform.
 *
 *   mulberry32  one 32-bit word of state (it fits in trainer_state.json), fast, good enough for sampling and shuffles
 *   fnv1a32     FNV-1a over UTF-16 code units: short stable keys and seeds from strings
 */

/** One mulberry32 step: the uniform value in [0, 1) and the next state. */
export function mulberry32Step(state: number): [value: number, next: number] {
  const next = (state + 0x6d2b79f5) >>> 0;
  let t = next;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, next];
}

/** A stream of uniforms in [0, 1) from a seed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    const [value, next] = mulberry32Step(state);
    state = next;
    return value;
  };
}

export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
