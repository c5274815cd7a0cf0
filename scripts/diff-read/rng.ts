/** A seeded generator (mulberry32, as test/helpers/seeded.ts) with the picks the state generators use: one seed, one set of cases. */
export class Rng {
  #a: number;
  constructor(seed: number) {
    this.#a = seed >>> 0;
  }
  next(): number {
    this.#a = (this.#a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(this.#a ^ (this.#a >>> 15), 1 | this.#a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  /** `[weight, value]` pairs: a value with twice the weight comes twice as often. */
  weighted<T>(pairs: readonly (readonly [number, T])[]): T {
    let r = this.next() * pairs.reduce((s, [w]) => s + w, 0);
    for (const [w, v] of pairs) if ((r -= w) < 0) return v;
    return pairs.at(-1)![1];
  }
  hex(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += "0123456789abcdef"[this.int(0, 15)];
    return s;
  }
}
