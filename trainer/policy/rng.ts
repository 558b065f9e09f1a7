/**
 * Seeded random numbers for sampling and data order. mulberry32: one 32-bit word of state, so the RNG state fits in
 * trainer_state.json and a resumed run draws exactly the numbers it would have drawn.
 */
import { mulberry32Step } from "../../lib/seeded-random";

export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    const [value, next] = mulberry32Step(this.s);
    this.s = next;
    return value;
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** A fresh seed for a TF.js op that takes one (initialisers). */
  seed(): number {
    return this.int(2 ** 31);
  }
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [xs[i], xs[j]] = [xs[j], xs[i]];
    }
    return xs;
  }
  getState(): number {
    return this.s;
  }
  setState(s: number): void {
    this.s = s >>> 0;
  }
}
