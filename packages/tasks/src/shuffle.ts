// The seeded shuffle every suite's data and task generator draws with.
import type { Rng } from '@owrl/core';

/** Fisher–Yates shuffle of a copy, driven by `rng`. */
export function shuffled<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}
