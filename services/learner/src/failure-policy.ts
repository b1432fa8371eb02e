// The learner's failure policy for bus operations: transient errors (timeouts, no responders, a
// JetStream API hiccup, an unconfirmed ack) back off and retry; a full stream (`discard: new`
// refusing the message) is backpressure: wait, say so in the run state, and try again for as long
// as it takes; anything else, or a transient error that outlasts the budget, is fatal.
import { BusErrorCode, isBusError, isPublishRefused } from '@owrl/bus';
import type { Logger } from '@owrl/core';
import { FatalRunCode, FatalRunError } from './errors.js';

const TRANSIENT = new Set<string>([BusErrorCode.PublishTimeout, BusErrorCode.NoStream, BusErrorCode.ApiFailed, BusErrorCode.AckFailed, BusErrorCode.PublishFailed]);

export function isTransient(e: unknown): boolean {
  return isBusError(e) && TRANSIENT.has(e.code);
}

export interface RetryOptions {
  log: Logger;
  /** Total time transient errors may last before they are fatal. Default 120 s. */
  budgetMs?: number;
  /** First back-off; doubles up to maxDelayMs. Default 250 ms. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Called while a full stream holds the operation back (true) and once it went through after that (false). */
  onBackpressure?: (active: boolean, what: string) => void;
  /** Stops waiting (the learner is stopping): the last error is thrown. */
  stopped?: () => boolean;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `op` under the failure policy. `what` names the operation in logs and in the fatal error.
 * @throws FatalRunError (the bus error's code, else LEARNER_ERROR) when the error is not transient, or transient errors outlast the budget.
 */
export async function withRetry<T>(what: string, op: () => Promise<T>, o: RetryOptions): Promise<T> {
  const sleep = o.sleep ?? defaultSleep;
  const budget = o.budgetMs ?? 120_000;
  const base = o.baseDelayMs ?? 250;
  const maxDelay = o.maxDelayMs ?? 5000;
  const t0 = Date.now();
  let delay = base;
  let pressured = false;
  for (let attempt = 1; ; attempt++) {
    try {
      const v = await op();
      if (pressured) o.onBackpressure?.(false, what);
      return v;
    } catch (e) {
      if (o.stopped?.()) throw e;
      if (isPublishRefused(e)) {
        if (!pressured) o.log.warn({ what, err: e }, 'stream full: backpressure, waiting for room');
        pressured = true;
        o.onBackpressure?.(true, what);
        await sleep(Math.min(maxDelay, delay));
        delay = Math.min(maxDelay, delay * 2);
        continue;
      }
      if (!isTransient(e)) {
        throw new FatalRunError(isBusError(e) ? e.code : FatalRunCode.LearnerError, `${what} failed: ${(e as Error).message}`, { cause: e });
      }
      if (Date.now() - t0 >= budget) {
        throw new FatalRunError(isBusError(e) ? e.code : FatalRunCode.LearnerError, `${what} kept failing for ${Math.round((Date.now() - t0) / 1000)} s: ${(e as Error).message}`, { cause: e });
      }
      o.log.warn({ what, attempt, err: e }, 'transient bus error: backing off');
      await sleep(delay);
      delay = Math.min(maxDelay, delay * 2);
    }
  }
}
