// Waiting for a condition in tests: poll a probe until it yields a value, with a deadline and a
// failure message that names what was awaited and what was last seen (not a bare "timed out").
import { OwrlError } from '@owrl/core';

export interface WaitOptions {
  /** Give up after this long. Default 60 s. */
  timeoutMs?: number;
  /** Pause between probes. Default 100 ms. */
  intervalMs?: number;
  /** Checked before every probe; a returned error aborts the wait at once (e.g. a process crashed). */
  abort?: () => Error | null;
}

export const WaitTimeoutErrorCode = {
  /** The probe gave no value before the deadline. */
  Timeout: 'WAIT_TIMEOUT',
} as const;
export type WaitTimeoutErrorCode = (typeof WaitTimeoutErrorCode)[keyof typeof WaitTimeoutErrorCode];

/** Error thrown when a wait runs out of time. */
export class WaitTimeoutError extends OwrlError<WaitTimeoutErrorCode> {
  override readonly name = 'WaitTimeoutError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(WaitTimeoutErrorCode.Timeout, message, options);
  }
}

export function isWaitTimeoutError(e: unknown, code?: WaitTimeoutErrorCode): e is WaitTimeoutError {
  return e instanceof WaitTimeoutError && (code === undefined || e.code === code);
}

/**
 * Calls `probe` until it returns something other than `undefined` and resolves with that value.
 * A probe that throws counts as "not yet" (its last error is reported on timeout).
 * @param what a few words for the failure message, e.g. "3 actors registered".
 * @throws WaitTimeoutError after `timeoutMs`; the abort error when `abort` returns one.
 */
export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, opts: WaitOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const intervalMs = opts.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let last: unknown = undefined;
  for (;;) {
    const aborted = opts.abort?.();
    if (aborted) throw aborted;
    try {
      const v = await probe();
      if (v !== undefined) return v;
      last = undefined;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline) {
      const why = last instanceof Error ? `; last error: ${last.message}` : '';
      throw new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
