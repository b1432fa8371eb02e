// Crash points for kill tests: OWRL_CRASH_AT=<point>[:<n>] makes the learner SIGKILL itself the
// n-th time (default 1st) it reaches the named point, so a test can kill it at an exact place of
// a round. Unset in production: hit() is then a no-op.

/** The named points of a round, in order. */
export const CRASH_POINTS = ['dispatching', 'in_flight', 'after_update', 'publishing'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export interface CrashSpec {
  point: CrashPoint;
  nth: number;
}

/** Parses OWRL_CRASH_AT; returns null for an empty value. @throws RangeError naming the value. */
export function parseCrashAt(raw: string): CrashSpec | null {
  if (raw === '') return null;
  const m = /^([a-z_]+)(?::(\d+))?$/.exec(raw);
  const point = m?.[1] as CrashPoint | undefined;
  if (!m || !point || !CRASH_POINTS.includes(point)) {
    throw new RangeError(`OWRL_CRASH_AT=${JSON.stringify(raw)}: expected one of ${CRASH_POINTS.join(', ')}, optionally followed by :N`);
  }
  const nth = m[2] === undefined ? 1 : Number(m[2]);
  if (nth < 1) throw new RangeError(`OWRL_CRASH_AT=${JSON.stringify(raw)}: N must be >= 1`);
  return { point, nth };
}

export class CrashPoints {
  private readonly counts = new Map<CrashPoint, number>();

  constructor(
    private readonly spec: CrashSpec | null,
    private readonly kill: () => void = () => process.kill(process.pid, 'SIGKILL'),
  ) {}

  /** Marks reaching `point`; kills the process when the spec names it and this is the n-th time. */
  hit(point: CrashPoint): void {
    if (!this.spec || this.spec.point !== point) return;
    const n = (this.counts.get(point) ?? 0) + 1;
    this.counts.set(point, n);
    if (n === this.spec.nth) this.kill();
  }
}
