// Checks Prometheus text exposition for tests: `promtool check metrics` (Debian package
// prometheus) when it is installed, and always owrl's own rules, which hold with or without it:
// every family has HELP and TYPE, names are `owrl_` snake case, counters end in `_total`, other
// kinds do not, histograms end in a base unit and carry `_bucket` (with `le`, ending at +Inf),
// `_sum` and `_count` series, and every sample line parses.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export interface MetricsCheck {
  /** `promtool` when it ran, else `validator` (owrl's rules only). */
  tool: 'promtool' | 'validator';
  /** What promtool and the rules found, one line each; empty when all is well. */
  problems: string[];
  /** Metric families seen. */
  families: number;
}

const HISTOGRAM_UNITS = ['seconds', 'bytes', 'ratio', 'steps', 'tokens', 'versions'];
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)( -?\d+)?$/;

function promtool(): string | null {
  for (const p of [process.env['PROMTOOL'], '/usr/bin/promtool', '/usr/local/bin/promtool']) if (p && fs.existsSync(p)) return p;
  return null;
}

/** owrl's naming and format rules over `text` (pure). */
export function lintExposition(text: string): { problems: string[]; families: number } {
  const problems: string[] = [];
  const help = new Set<string>();
  const type = new Map<string, string>();
  const samples = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name = '', rest = ''] = meta;
      if (kind === 'HELP') {
        if (rest.trim() === '') problems.push(`${name}: empty HELP`);
        help.add(name);
      } else type.set(name, rest.trim());
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) {
      problems.push(`unparseable sample line: ${line.slice(0, 160)}`);
      continue;
    }
    const name = m[1] ?? '';
    const family = [...type.keys()].find((f) => name === f || ((type.get(f) === 'histogram' || type.get(f) === 'summary') && /^(.*)_(bucket|sum|count)$/.exec(name)?.[1] === f));
    if (!family) problems.push(`${name}: sample without a TYPE`);
    else samples.set(family, [...(samples.get(family) ?? []), line]);
  }
  for (const [name, kind] of type) {
    if (!help.has(name)) problems.push(`${name}: no HELP`);
    if (!/^owrl_[a-z0-9_]+$/.test(name)) problems.push(`${name}: not owrl_ snake case`);
    if (kind === 'counter' && !name.endsWith('_total')) problems.push(`${name}: counter without _total`);
    if (kind !== 'counter' && name.endsWith('_total')) problems.push(`${name}: ${kind} ends in _total`);
    if (kind === 'histogram') {
      if (!HISTOGRAM_UNITS.some((u) => name.endsWith(`_${u}`))) problems.push(`${name}: histogram without a base unit (${HISTOGRAM_UNITS.join(', ')})`);
      const lines = samples.get(name) ?? [];
      const buckets = lines.filter((l) => l.startsWith(`${name}_bucket`));
      if (lines.length > 0) {
        if (!buckets.some((l) => l.includes('le="+Inf"'))) problems.push(`${name}: no +Inf bucket`);
        if (!lines.some((l) => l.startsWith(`${name}_sum`)) || !lines.some((l) => l.startsWith(`${name}_count`))) problems.push(`${name}: no _sum or _count`);
      }
    }
  }
  return { problems, families: type.size };
}

/** Checks `text` with promtool (when installed) and owrl's rules. */
export function checkMetrics(text: string): MetricsCheck {
  const own = lintExposition(text);
  const bin = promtool();
  if (!bin) return { tool: 'validator', problems: own.problems, families: own.families };
  const r = spawnSync(bin, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const problems = [...own.problems, ...(r.status === 0 ? [] : out.length > 0 ? out.map((l) => `promtool: ${l}`) : [`promtool exited ${r.status}`])];
  return { tool: 'promtool', problems, families: own.families };
}
