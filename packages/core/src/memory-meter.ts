// A meter that keeps what is recorded in memory and answers questions about it: the test double
// that proves a component records what it should, without prom-client. Label sets are checked
// strictly (every declared label, nothing else) so a test catches a mislabelled call.
import {
  checkMetricSpec,
  MeterError,
  MeterErrorCode,
  type Counter,
  type Gauge,
  type Histogram,
  type HistogramSpec,
  type Meter,
  type MetricKind,
  type MetricSpec,
} from './meter.js';

interface Series {
  labels: Record<string, string>;
  value: number;
  observations: number[];
}

interface Metric {
  kind: MetricKind;
  labelNames: readonly string[];
  buckets: readonly number[];
  series: Map<string, Series>;
}

export interface SeriesValue {
  labels: Record<string, string>;
  value: number;
}

export class MemoryMeter implements Meter {
  readonly #metrics = new Map<string, Metric>();

  counter<L extends string = never>(spec: MetricSpec<L>): Counter<L> {
    const m = this.#register('counter', spec);
    return {
      inc: (...args: unknown[]) => {
        const [labels, value] = this.#split(spec.name, m, args, 1);
        if (!(value >= 0) || !Number.isFinite(value)) throw new MeterError(MeterErrorCode.InvalidRecord, `counter ${spec.name}: increment ${value} must be a finite number >= 0`);
        this.#series(m, labels).value += value;
      },
    } as Counter<L>;
  }

  gauge<L extends string = never>(spec: MetricSpec<L>): Gauge<L> {
    const m = this.#register('gauge', spec);
    const change = (sign: number) => (...args: unknown[]) => {
      const [labels, value] = this.#split(spec.name, m, args, 1);
      this.#series(m, labels).value += sign * value;
    };
    return {
      set: (...args: unknown[]) => {
        const [labels, value] = this.#split(spec.name, m, args, undefined);
        this.#series(m, labels).value = value;
      },
      inc: change(1),
      dec: change(-1),
    } as Gauge<L>;
  }

  histogram<L extends string = never>(spec: HistogramSpec<L>): Histogram<L> {
    const m = this.#register('histogram', spec);
    return {
      observe: (...args: unknown[]) => {
        const [labels, value] = this.#split(spec.name, m, args, undefined);
        this.#series(m, labels).observations.push(value);
      },
    } as Histogram<L>;
  }

  /** Names of the metrics created so far, sorted. */
  names(): string[] {
    return [...this.#metrics.keys()].sort();
  }

  /**
   * Value of a counter or gauge for exactly these labels (0 when never recorded).
   * @throws MeterError METER_INVALID_RECORD when no counter or gauge has that name.
   */
  value(name: string, labels: Record<string, string | number> = {}): number {
    const m = this.#get(name, ['counter', 'gauge']);
    return m.series.get(this.#queryKey(name, m, labels))?.value ?? 0;
  }

  /** Every recorded series of a counter or gauge, in recording order. */
  series(name: string): SeriesValue[] {
    return [...this.#get(name, ['counter', 'gauge']).series.values()].map((s) => ({ labels: { ...s.labels }, value: s.value }));
  }

  /** Observations of a histogram for exactly these labels, in recording order. */
  observations(name: string, labels: Record<string, string | number> = {}): number[] {
    const m = this.#get(name, ['histogram']);
    return [...(m.series.get(this.#queryKey(name, m, labels))?.observations ?? [])];
  }

  /** Sum over every series of a counter (all label values). */
  total(name: string): number {
    return this.series(name).reduce((a, s) => a + s.value, 0);
  }

  #register(kind: MetricKind, spec: MetricSpec<string> & { buckets?: readonly number[] }): Metric {
    checkMetricSpec(kind, spec);
    const labelNames = [...(spec.labelNames ?? [])];
    const old = this.#metrics.get(spec.name);
    if (old) {
      if (old.kind !== kind || old.labelNames.join(',') !== labelNames.join(',')) {
        throw new MeterError(MeterErrorCode.InvalidMetric, `${kind} ${spec.name} [${labelNames.join(',')}] clashes with the ${old.kind} [${old.labelNames.join(',')}] of that name`);
      }
      return old;
    }
    const m: Metric = { kind, labelNames, buckets: [...(spec.buckets ?? [])], series: new Map() };
    this.#metrics.set(spec.name, m);
    return m;
  }

  #get(name: string, kinds: MetricKind[]): Metric {
    const m = this.#metrics.get(name);
    if (!m || !kinds.includes(m.kind)) throw new MeterError(MeterErrorCode.InvalidRecord, `no ${kinds.join(' or ')} named ${name} (have: ${this.names().join(', ') || 'none'})`);
    return m;
  }

  /** The series key of a query, which must name every declared label (a partial query is a test bug). */
  #queryKey(name: string, m: Metric, labels: Record<string, string | number>): string {
    const keys = Object.keys(labels).sort();
    if (keys.join(',') !== [...m.labelNames].sort().join(',')) {
      throw new MeterError(MeterErrorCode.InvalidRecord, `${m.kind} ${name}: query labels {${keys.join(', ')}} are not the declared {${m.labelNames.join(', ')}}`);
    }
    return seriesKey(m.labelNames, stringify(labels));
  }

  #split(name: string, m: Metric, args: unknown[], def: number | undefined): [Record<string, string>, number] {
    let labels: Record<string, string> = {};
    let rest = args;
    if (m.labelNames.length > 0) {
      const given = args[0];
      if (typeof given !== 'object' || given === null) throw new MeterError(MeterErrorCode.InvalidRecord, `${m.kind} ${name}: labels ${m.labelNames.join(', ')} are required`);
      labels = stringify(given as Record<string, string | number>);
      const keys = Object.keys(labels).sort();
      if (keys.join(',') !== [...m.labelNames].sort().join(',')) {
        throw new MeterError(MeterErrorCode.InvalidRecord, `${m.kind} ${name}: labels {${keys.join(', ')}} are not the declared {${m.labelNames.join(', ')}}`);
      }
      rest = args.slice(1);
    }
    const value = rest[0] === undefined ? def : rest[0];
    if (typeof value !== 'number' || Number.isNaN(value)) throw new MeterError(MeterErrorCode.InvalidRecord, `${m.kind} ${name}: value ${String(value)} is not a number`);
    return [labels, value];
  }

  #series(m: Metric, labels: Record<string, string>): Series {
    const key = seriesKey(m.labelNames, labels);
    let s = m.series.get(key);
    if (!s) {
      s = { labels, value: 0, observations: [] };
      m.series.set(key, s);
    }
    return s;
  }
}

function stringify(labels: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)]));
}

function seriesKey(names: readonly string[], labels: Record<string, string>): string {
  return JSON.stringify(names.map((n) => labels[n] ?? null));
}
