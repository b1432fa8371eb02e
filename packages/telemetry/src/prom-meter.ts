// The prom-client binding of the owrl Meter: a registry per service (no global default registry),
// the service name as a default label, the process metrics of prom-client under `owrl_`, and the
// Prometheus text of /metrics. Only the startup path (@owrl/service) creates one.
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
} from '@owrl/core';
import * as prom from 'prom-client';

type PromMetric = prom.Counter | prom.Gauge | prom.Histogram;
type Labels = Record<string, string | number>;

export interface PromMeterOptions {
  /** Collect prom-client's process metrics (CPU, memory, event loop); default true. */
  defaultMetrics?: boolean;
}

export class PromMeter implements Meter {
  readonly #registry = new prom.Registry();
  readonly #metrics = new Map<string, { kind: MetricKind; labelNames: string; metric: PromMetric }>();

  constructor(service: string, opts: PromMeterOptions = {}) {
    this.#registry.setDefaultLabels({ service });
    if (opts.defaultMetrics ?? true) prom.collectDefaultMetrics({ register: this.#registry, prefix: 'owrl_' });
  }

  /** Content type of render()'s text. */
  get contentType(): string {
    return this.#registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  async render(): Promise<string> {
    return await this.#registry.metrics();
  }

  counter<L extends string = never>(spec: MetricSpec<L>): Counter<L> {
    const c = this.#register('counter', spec, (labelNames) => new prom.Counter({ name: spec.name, help: spec.help, labelNames, registers: [this.#registry] })) as prom.Counter;
    const labelled = (spec.labelNames ?? []).length > 0;
    return {
      inc: (...args: unknown[]) => (labelled ? c.inc(args[0] as Labels, (args[1] as number | undefined) ?? 1) : c.inc((args[0] as number | undefined) ?? 1)),
    } as Counter<L>;
  }

  gauge<L extends string = never>(spec: MetricSpec<L>): Gauge<L> {
    const g = this.#register('gauge', spec, (labelNames) => new prom.Gauge({ name: spec.name, help: spec.help, labelNames, registers: [this.#registry] })) as prom.Gauge;
    const labelled = (spec.labelNames ?? []).length > 0;
    return {
      set: (...args: unknown[]) => (labelled ? g.set(args[0] as Labels, args[1] as number) : g.set(args[0] as number)),
      inc: (...args: unknown[]) => (labelled ? g.inc(args[0] as Labels, (args[1] as number | undefined) ?? 1) : g.inc((args[0] as number | undefined) ?? 1)),
      dec: (...args: unknown[]) => (labelled ? g.dec(args[0] as Labels, (args[1] as number | undefined) ?? 1) : g.dec((args[0] as number | undefined) ?? 1)),
    } as Gauge<L>;
  }

  histogram<L extends string = never>(spec: HistogramSpec<L>): Histogram<L> {
    const h = this.#register('histogram', spec, (labelNames) => new prom.Histogram({ name: spec.name, help: spec.help, labelNames, buckets: [...spec.buckets], registers: [this.#registry] })) as prom.Histogram;
    const labelled = (spec.labelNames ?? []).length > 0;
    return {
      observe: (...args: unknown[]) => (labelled ? h.observe(args[0] as Labels, args[1] as number) : h.observe(args[0] as number)),
    } as Histogram<L>;
  }

  #register(kind: MetricKind, spec: MetricSpec<string> & { buckets?: readonly number[] }, create: (labelNames: string[]) => PromMetric): PromMetric {
    checkMetricSpec(kind, spec);
    const labelNames = [...(spec.labelNames ?? [])];
    const old = this.#metrics.get(spec.name);
    if (old) {
      if (old.kind !== kind || old.labelNames !== labelNames.join(',')) {
        throw new MeterError(MeterErrorCode.InvalidMetric, `${kind} ${spec.name} [${labelNames.join(',')}] clashes with the ${old.kind} [${old.labelNames}] of that name`);
      }
      return old.metric;
    }
    const metric = create(labelNames);
    this.#metrics.set(spec.name, { kind, labelNames: labelNames.join(','), metric });
    return metric;
  }
}
