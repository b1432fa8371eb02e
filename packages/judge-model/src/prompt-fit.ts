// Shortening a judge prompt to a budget, shared by the ONNX judge (tokens) and the API judge
// (characters): the oldest steps go first (as few as needed), and when no step is left and it is
// still too long, the instruction and final answer are clipped (as little as needed). Pure.
import type { JudgeInput, Shortening } from './prompt.js';

export type FitResult<T> = { fits: true; value: T } | { fits: false; /** The prompt with no steps and empty long fields. */ bare: T };

/**
 * The least-shortened prompt whose `size` is at most `max`. `build` renders the prompt for a
 * shortening; `size` measures it. Monotone in both knobs is assumed (fewer steps or shorter fields
 * never make a prompt longer), which binary search relies on.
 */
export function shortenToFit<T>(input: JudgeInput, build: (cut: Shortening) => T, size: (value: T) => number, max: number): FitResult<T> {
  const full = build({ dropSteps: 0 });
  if (size(full) <= max) return { fits: true, value: full };
  const n = input.steps.length;
  const none = build({ dropSteps: n });
  if (size(none) <= max) {
    // Smallest number of dropped steps that fits; `hi` always fits.
    let lo = 1;
    let hi = n;
    let best = none;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const v = build({ dropSteps: mid });
      if (size(v) <= max) {
        hi = mid;
        best = v;
      } else {
        lo = mid + 1;
      }
    }
    return { fits: true, value: best };
  }
  const bare = build({ dropSteps: n, clipChars: 0 });
  if (size(bare) > max) return { fits: false, bare };
  // Largest clip length that fits; `lo` always fits.
  let lo = 0;
  let hi = Math.max(input.instruction.length, input.finalAnswer.length);
  let best = bare;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    const v = build({ dropSteps: n, clipChars: mid });
    if (size(v) <= max) {
      lo = mid;
      best = v;
    } else {
      hi = mid - 1;
    }
  }
  return { fits: true, value: best };
}
