// Keeps RunState.rounds bounded over a long run: the latest `recent` rounds in full, and older
// rounds thinned to at most `older` evenly spaced ones (round numbers that are multiples of a
// power-of-two stride; round 0 always stays), so the learning curve keeps its shape from the
// first round on while every WatchRun event and GetRunState answer stays the same size. Every
// round's summary stays on disk in the checkpoint's rounds.jsonl.
import type { RoundSummary } from '@owrl/proto';

export interface RoundHistoryOptions {
  /** Latest rounds kept in full; default 200. */
  recent?: number;
  /** Older rounds kept (thinned); default 200. */
  older?: number;
}

export const DEFAULT_RECENT_ROUNDS = 200;
export const DEFAULT_OLDER_ROUNDS = 200;

/** Checks the options; @throws RangeError naming the bad one. */
export function roundHistoryLimits(o: RoundHistoryOptions = {}): { recent: number; older: number } {
  const recent = o.recent ?? DEFAULT_RECENT_ROUNDS;
  const older = o.older ?? DEFAULT_OLDER_ROUNDS;
  if (!Number.isInteger(recent) || recent < 3) throw new RangeError(`recent rounds kept is ${recent}; expected an integer >= 3 (the report reads the last three)`);
  if (!Number.isInteger(older) || older < 1) throw new RangeError(`older rounds kept is ${older}; expected an integer >= 1`);
  return { recent, older };
}

/**
 * `rounds` (in round order) itself when within the limits, else the latest `recent` plus the
 * older ones at the smallest power-of-two stride that leaves at most `older` of them.
 */
export function thinRounds(rounds: RoundSummary[], limits: { recent: number; older: number }): RoundSummary[] {
  if (rounds.length <= limits.recent + limits.older) return rounds;
  const cut = rounds.length - limits.recent;
  const head = rounds.slice(0, cut);
  let stride = 1;
  let kept = head;
  while (kept.length > limits.older) {
    stride *= 2;
    kept = head.filter((r) => Number(r.round) % stride === 0);
  }
  return [...kept, ...rounds.slice(cut)];
}
