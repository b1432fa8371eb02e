// The meter interface every owrl constructor takes beside the logger: counters, gauges and
// histograms with declared label names. Only service mains bind a real one (the prom-client
// binding of @owrl/telemetry, created by @owrl/service); libraries default to `noopMeter`.
// Call shapes follow Prometheus clients (labels first, then the value) so that call sites read
// the same whichever meter is bound.
import { OwrlError } from './errors.js';

/** Values of every declared label (numbers are rendered as decimal strings). */
export type LabelValues<L extends string> = { readonly [K in L]: string | number };

/** Arguments of a recording call: the label values first when the metric declares labels. */
export type WithLabels<L extends string, Rest extends unknown[]> = [L] extends [never] ? Rest : [labels: LabelValues<L>, ...Rest];

export interface Counter<L extends string = never> {
  /** Adds `value` (default 1; must be >= 0). */
  inc(...args: WithLabels<L, [value?: number]>): void;
}

export interface Gauge<L extends string = never> {
  set(...args: WithLabels<L, [value: number]>): void;
  /** Adds `value` (default 1). */
  inc(...args: WithLabels<L, [value?: number]>): void;
  /** Subtracts `value` (default 1). */
  dec(...args: WithLabels<L, [value?: number]>): void;
}

export interface Histogram<L extends string = never> {
  observe(...args: WithLabels<L, [value: number]>): void;
}

export interface MetricSpec<L extends string = never> {
  /**
   * Prometheus name with its unit: counters end in `_total`, histograms in a base unit
   * (`_seconds`, `_bytes`, `_ratio`, `_steps`, `_tokens`, `_versions`), e.g. `owrl_actor_episode_seconds`.
   */
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export interface HistogramSpec<L extends string = never> extends MetricSpec<L> {
  /** Upper bounds of the buckets, ascending, in the unit of the name. */
  buckets: readonly number[];
}

/**
 * Creates metrics. Asking twice for the same name with the same kind and label names returns the
 * same metric; a different kind or label set is an error (METER_INVALID_METRIC).
 */
export interface Meter {
  counter<L extends string = never>(spec: MetricSpec<L>): Counter<L>;
  gauge<L extends string = never>(spec: MetricSpec<L>): Gauge<L>;
  histogram<L extends string = never>(spec: HistogramSpec<L>): Histogram<L>;
}

export type MetricKind = 'counter' | 'gauge' | 'histogram';

/** Base units a histogram name may end in. */
export const HISTOGRAM_UNITS = ['seconds', 'bytes', 'ratio', 'steps', 'tokens', 'versions'] as const;

/** Seconds: from 50 ms steps to 30-minute episodes. */
export const EPISODE_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800];
/** Seconds: fast operations (judging, a step). */
export const FAST_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const MeterErrorCode = {
  /** A metric name, label name or bucket list breaks the conventions, or clashes with an earlier metric. */
  InvalidMetric: 'METER_INVALID_METRIC',
  /** A recording call gave labels that are not the declared ones, or a negative counter increment. */
  InvalidRecord: 'METER_INVALID_RECORD',
} as const;
export type MeterErrorCode = (typeof MeterErrorCode)[keyof typeof MeterErrorCode];

export class MeterError extends OwrlError<MeterErrorCode> {
  override readonly name = 'MeterError';
}

export function isMeterError(e: unknown, code?: MeterErrorCode): e is MeterError {
  return e instanceof MeterError && (code === undefined || e.code === code);
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Checks a metric's name, labels and buckets against the conventions (units in names).
 * @throws MeterError METER_INVALID_METRIC naming the metric and what is wrong.
 */
export function checkMetricSpec(kind: MetricKind, spec: MetricSpec<string> & { buckets?: readonly number[] }): void {
  const bad = (why: string): never => {
    throw new MeterError(MeterErrorCode.InvalidMetric, `${kind} ${JSON.stringify(spec.name)}: ${why}`);
  };
  if (!NAME.test(spec.name)) bad(`name must match ${String(NAME)}`);
  if (kind === 'counter' && !spec.name.endsWith('_total')) bad('a counter name ends in _total');
  if (kind !== 'counter' && spec.name.endsWith('_total')) bad('only counter names end in _total');
  if (kind === 'histogram' && !HISTOGRAM_UNITS.some((u) => spec.name.endsWith(`_${u}`))) bad(`a histogram name ends in its unit (${HISTOGRAM_UNITS.map((u) => `_${u}`).join(', ')})`);
  if (spec.help.trim() === '') bad('help must not be empty');
  const labels = spec.labelNames ?? [];
  for (const l of labels) if (!LABEL.test(l) || l.startsWith('__')) bad(`label name ${JSON.stringify(l)} is not valid`);
  if (new Set(labels).size !== labels.length) bad(`label names ${JSON.stringify(labels)} repeat`);
  if (kind === 'histogram') {
    if (labels.includes('le')) bad('a histogram cannot have a label named le');
    const b = spec.buckets ?? [];
    if (b.length === 0 || b.some((x, i) => !Number.isFinite(x) || (i > 0 && x <= (b[i - 1] as number)))) bad(`buckets ${JSON.stringify(b)} must be finite and ascending`);
  }
}

const noopCounter = { inc: () => {} };
const noopGauge = { set: () => {}, inc: () => {}, dec: () => {} };
const noopHistogram = { observe: () => {} };

/** A meter that records nothing (library default when none is injected); it still checks the specs. */
export const noopMeter: Meter = {
  counter: <L extends string = never>(spec: MetricSpec<L>) => {
    checkMetricSpec('counter', spec);
    return noopCounter as Counter<L>;
  },
  gauge: <L extends string = never>(spec: MetricSpec<L>) => {
    checkMetricSpec('gauge', spec);
    return noopGauge as Gauge<L>;
  },
  histogram: <L extends string = never>(spec: HistogramSpec<L>) => {
    checkMetricSpec('histogram', spec);
    return noopHistogram as Histogram<L>;
  },
};
