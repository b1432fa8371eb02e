// Per-host failure counting for the blacklist (pure): a sliding time window per host that trips
// once it holds `threshold` failures, naming the dominant cause. Which outcomes count, and under
// which cause, is @owrl/core's hostFailureCause (derived from the termination reasons' fault).

export interface HostFailureOptions {
  /** Failures within the window that blacklist a host (>= 1). */
  threshold: number;
  /** Length of the sliding window, ms (> 0). */
  windowMs: number;
}

/** A host that crossed the threshold: what to write to the blacklist. */
export interface HostTrip {
  host: string;
  /** The most frequent cause in the window (ties go to the cause that reached the count last). */
  reason: string;
  /** Failures in the window when it tripped. */
  failures: number;
}

/**
 * Counts failures per host in a sliding window. A host trips when its window holds `threshold`
 * failures; its window then starts afresh, so in-flight failures arriving after the trip need a
 * full new threshold to trip again. Memory is bounded by hosts × threshold.
 */
export class HostFailureWindow {
  private readonly windows = new Map<string, Array<{ atMs: number; cause: string }>>();

  constructor(private readonly o: HostFailureOptions) {
    if (!Number.isInteger(o.threshold) || o.threshold < 1) throw new RangeError(`host failure threshold=${String(o.threshold)} must be an integer >= 1`);
    if (!Number.isFinite(o.windowMs) || o.windowMs <= 0) throw new RangeError(`host failure windowMs=${String(o.windowMs)} must be > 0`);
  }

  /** Records one failure of `host` at `nowMs`; returns the trip when this failure crosses the threshold. */
  record(host: string, cause: string, nowMs: number): HostTrip | null {
    const w = this.prune(host, nowMs);
    w.push({ atMs: nowMs, cause });
    if (w.length < this.o.threshold) {
      this.windows.set(host, w);
      return null;
    }
    this.windows.delete(host);
    return { host, reason: dominant(w), failures: w.length };
  }

  /** The windows, for checkpoints. */
  snapshot(): Record<string, Array<{ atMs: number; cause: string }>> {
    return Object.fromEntries([...this.windows].map(([h, w]) => [h, w.map((f) => ({ ...f }))]));
  }

  /** Restores a snapshot() (entries older than the window fall out on the next record). */
  restore(s: Record<string, Array<{ atMs: number; cause: string }>>): void {
    this.windows.clear();
    for (const [h, w] of Object.entries(s)) this.windows.set(h, w.map((f) => ({ atMs: f.atMs, cause: f.cause })));
  }

  private prune(host: string, nowMs: number): Array<{ atMs: number; cause: string }> {
    return (this.windows.get(host) ?? []).filter((f) => nowMs - f.atMs < this.o.windowMs);
  }
}

function dominant(w: ReadonlyArray<{ cause: string }>): string {
  const counts = new Map<string, number>();
  let best = '';
  let bestN = 0;
  for (const { cause } of w) {
    const n = (counts.get(cause) ?? 0) + 1;
    counts.set(cause, n);
    if (n >= bestN) {
      best = cause;
      bestN = n;
    }
  }
  return best;
}
