// Small promise helpers with deadlines and abort signals. A promise that loses a race keeps
// running; its late rejection is swallowed so it never becomes an unhandled rejection.

/** Resolves or rejects like `p`, or rejects with `onTimeout()` after `ms`, or with the signal's reason. */
export function bounded<T>(p: Promise<T>, ms: number, onTimeout: () => unknown, signal?: AbortSignal): Promise<T> {
  p.catch(() => {});
  if (signal?.aborted) return Promise.reject(signal.reason as unknown);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(onTimeout())), Math.max(0, ms));
    const onAbort = (): void => finish(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    let done = false;
    function finish(f: () => void): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      f();
    }
    p.then(
      (v) => finish(() => resolve(v)),
      (e: unknown) => finish(() => reject(e)),
    );
  });
}

/** Like bounded() but resolves to `fallback` on timeout or rejection (best-effort waits). */
export async function settleWithin<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  try {
    return await bounded(p, ms, () => new Error('timeout'));
  } catch {
    return fallback;
  }
}

/** Sleeps `ms`; rejects with the signal's reason when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return bounded(new Promise<never>(() => {}), ms, () => undefined, signal).catch((e: unknown) => {
    if (signal?.aborted) throw e;
  });
}

export function msSince(t: number): number {
  return Math.round((performance.now() - t) * 100) / 100;
}
