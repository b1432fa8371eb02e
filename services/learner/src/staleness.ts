// Async mode's staleness bookkeeping: how many policy versions behind the version they update the
// trained trajectories were (a count per lag over the run, the histogram metric), and the results
// dropped as too stale (counters.staleDropped); both shown in RunState.staleness.
import { make, StalenessStatSchema } from '@owrl/proto';
import type { GroupState } from './round-group.js';
import type { RunStateStore } from './run-state-store.js';

export class StalenessBook {
  /** Trained trajectories per lag (versions behind), over the run. */
  private lags: number[] = [];

  constructor(
    private readonly store: RunStateStore,
    private readonly metric: { observe(v: number): void },
    private readonly maxStaleness: number,
  ) {}

  /** The counts of a checkpoint (a resumed run goes on from them). */
  restore(counts: readonly number[]): void {
    this.lags = [...counts];
  }

  /** The counts per lag, for the checkpoint. */
  counts(): number[] {
    return Array.from(this.lags, (n) => n ?? 0);
  }

  /** Counts results dropped as stale. */
  dropped(n: number): void {
    if (n === 0) return;
    this.store.mutable.counters!.staleDropped += BigInt(n);
    this.publish();
  }

  /** Staleness of the trajectories an update from `policyVersion` trains; returns the round's counts per lag. */
  record(kept: readonly GroupState[], policyVersion: number): number[] {
    const round: number[] = [];
    for (const g of kept) {
      for (const s of g.samples) {
        const lag = Math.max(0, policyVersion - Number(s.scored?.trajectory?.policyVersion ?? 0n));
        round[lag] = (round[lag] ?? 0) + 1;
        this.lags[lag] = (this.lags[lag] ?? 0) + 1;
        this.metric.observe(lag);
      }
    }
    this.publish();
    return Array.from(round, (n) => n ?? 0);
  }

  /** RunState.staleness from the run's counts. */
  publish(): void {
    const counts = this.counts();
    this.store.change('progress', (s) => {
      s.staleness = make(StalenessStatSchema, {
        maxStaleness: this.maxStaleness,
        counts: counts.map(BigInt),
        p50: quantile(counts, 0.5),
        p99: quantile(counts, 0.99),
        dropped: s.counters?.staleDropped ?? 0n,
      });
    });
  }
}

/** The q-quantile of a histogram given as counts per integer value (0 when empty). */
export function quantile(counts: readonly number[], q: number): number {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let v = 0; v < counts.length; v++) {
    seen += counts[v] ?? 0;
    if (seen >= rank) return v;
  }
  return counts.length - 1;
}
