// Small seeded PRNG (mulberry32) for reproducible sampling in policies, generators and tests.

export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** mulberry32 with its state readable and restorable (for checkpoints). */
export class SeededRng {
  private a: number;

  constructor(seed: number) {
    this.a = seed >>> 0;
  }

  /** The next number in [0, 1). */
  readonly next: Rng = () => {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  get state(): number {
    return this.a;
  }

  set state(v: number) {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`rng state ${String(v)} must be a 32-bit unsigned integer`);
    this.a = v >>> 0;
  }
}

/** 32-bit FNV-1a hash of a string, for seeds and feature hashing. */
export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
