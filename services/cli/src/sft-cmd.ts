// `owrl sft export`: successful trajectories as chat-format JSONL in OpenWebRL's agent format, for
// an external SFT trainer. Sources: the bundled sites' scripted solvers (played in Chromium, judged
// by the tasks' own verifiers) and the scored trajectories of runs (OWRL_SCORED). Each decision is
// one record: the request the `openai` policy backend sends for that step, then the reply.
import { parseArgs } from 'node:util';
import { BrowserPool } from '@owrl/browser-env';
import { fetchSuiteTasks, recordDemonstration, sftRecords, SOLVER_SUITES, type ImageMode } from '@owrl/demos';
import type { Task } from '@owrl/proto';
import { exportRunRecords } from './sft-runs.js';
import { natsSettings } from './nats-option.js';
import { useSites } from './stack.js';
import { keepTask, SftWriter, type ExportSummary, type SftFilters } from './sft-writer.js';
import { UsageError } from './usage.js';

export const SFT_HELP = `owrl sft — supervised fine-tuning data

usage:
  owrl sft export [--from solvers|runs] [--out FILE] [--images data-url|files|none] [--screenshots K]
                  [--suites a,b] [--families f,g] [--difficulties 1,2] [--verdict-source verifier|model|any]
      solvers (default): play the bundled sites' scripted solvers in Chromium on generated tasks
                  [--sites URL] [--n N per suite] [--seed S]; without --sites a sites server is
                  started for the export.
      runs: read successful scored trajectories from OWRL_SCORED [--nats URL] [--run ID].
      Writes one JSON object per decision: {id, task_id, suite, family, difficulty, source,
      verdict_source, step, steps, messages, tools} where messages are the openai policy backend's
      request for that step plus the demonstrated reply as the assistant turn. Only successful
      trajectories, one per task. Images: inline data URLs, files in FILE.images/ (named by sha256,
      referenced by a path relative to FILE), or none. Format: docs/sft.md.
`;

function list(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function int(flag: string, raw: string | undefined, def: number, min: number): number {
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${flag} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

export interface SolverExportOptions {
  sites?: string;
  n: number;
  seed: number;
  screenshots: number;
  filters: SftFilters;
  chromium?: string;
  log: (line: string) => void;
}

/** Plays the scripted solvers on generated tasks and writes the successful ones' records. */
export async function exportSolverRecords(o: SolverExportOptions, w: SftWriter, images: ImageMode): Promise<ExportSummary> {
  const suites = o.filters.suites.length > 0 ? o.filters.suites : [...SOLVER_SUITES];
  for (const s of suites) if (!SOLVER_SUITES.includes(s)) throw new UsageError(`--suites: no scripted solver for ${JSON.stringify(s)} (have: ${SOLVER_SUITES.join(', ')})`);
  const summary: ExportSummary = { tasks: 0, trajectories: 0, records: 0, failed: [] };
  if (o.filters.verdictSource === 'model') return summary; // solver trajectories are judged by verifiers only
  const sites = await useSites(o.sites);
  const pool = new BrowserPool({
    screenshots: images === 'none' ? 0 : o.screenshots,
    allowHosts: [sites.host],
    ...(o.chromium ? { executablePath: o.chromium } : {}),
  });
  try {
    await pool.start();
    const tasks: Task[] = [];
    for (const suite of suites) {
      const got = await fetchSuiteTasks(sites.url, suite, { seed: o.seed, n: o.n, difficulties: o.filters.difficulties });
      tasks.push(...got.filter((t) => keepTask(t, o.filters)));
    }
    summary.tasks = tasks.length;
    o.log(`sft export: ${tasks.length} tasks from ${suites.join(', ')} (sites ${sites.url})`);
    const seen = new Set<string>();
    const queue = [...tasks];
    const render = w.renderOptions(o.screenshots);
    const worker = async (): Promise<void> => {
      for (let t = queue.shift(); t !== undefined; t = queue.shift()) {
        if (seen.has(t.id)) continue;
        const d = await recordDemonstration(pool, t, { screenshots: images !== 'none', session: `sft/${t.id}` });
        if (d.verdict.status !== 'pass') {
          summary.failed.push(`${t.id}: ${d.verdict.detail}`);
          continue;
        }
        if (seen.has(t.id)) continue;
        seen.add(t.id);
        const recs = sftRecords(t, d.steps, { source: 'solver', verdictSource: 'verifier' }, render);
        w.write(recs);
        summary.trajectories++;
        summary.records += recs.length;
      }
    };
    await Promise.all([worker(), worker()]);
  } finally {
    await pool.close();
    await sites.close();
  }
  return summary;
}

export async function runSftCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === 'help' || sub === '--help') {
    process.stdout.write(SFT_HELP);
    return 0;
  }
  if (sub !== 'export') throw new UsageError(`unknown sft command ${JSON.stringify(sub)}\n\n${SFT_HELP}`);
  const { values } = parseArgs({
    args: [...rest],
    options: {
      from: { type: 'string' },
      out: { type: 'string' },
      images: { type: 'string' },
      screenshots: { type: 'string' },
      suites: { type: 'string' },
      families: { type: 'string' },
      difficulties: { type: 'string' },
      'verdict-source': { type: 'string' },
      sites: { type: 'string' },
      n: { type: 'string' },
      seed: { type: 'string' },
      nats: { type: 'string' },
      run: { type: 'string' },
    },
  });
  const from = values.from ?? 'solvers';
  if (from !== 'solvers' && from !== 'runs') throw new UsageError(`--from must be solvers or runs, got ${JSON.stringify(from)}`);
  const images = (values.images ?? 'data-url') as ImageMode;
  if (!['data-url', 'files', 'none'].includes(images)) throw new UsageError(`--images must be data-url, files or none, got ${JSON.stringify(values.images)}`);
  const vs = values['verdict-source'] ?? 'any';
  if (vs !== 'verifier' && vs !== 'model' && vs !== 'any') throw new UsageError(`--verdict-source must be verifier, model or any, got ${JSON.stringify(vs)}`);
  const difficulties = list(values.difficulties).map((d) => {
    const n = Number(d);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--difficulties: ${JSON.stringify(d)} is not a positive integer`);
    return n;
  });
  const filters: SftFilters = { suites: list(values.suites), families: list(values.families), difficulties, verdictSource: vs };
  const screenshots = int('screenshots', values.screenshots, 1, 0);
  const out = values.out ?? '';
  const log = (line: string): void => void process.stderr.write(line + '\n');
  const w = new SftWriter(out, images);
  let s: ExportSummary;
  try {
    if (from === 'solvers') {
      s = await exportSolverRecords(
        {
          ...(values.sites !== undefined ? { sites: values.sites } : {}),
          n: int('n', values.n, 10, 1),
          seed: int('seed', values.seed, 101, 0),
          screenshots,
          filters,
          ...(env['OWRL_CHROMIUM'] ? { chromium: env['OWRL_CHROMIUM'] } : {}),
          log,
        },
        w,
        images,
      );
    } else {
      s = await exportRunRecords({ nats: natsSettings(env, values.nats), runId: values.run ?? '', filters, screenshots }, w);
    }
  } finally {
    w.close();
  }
  log(`sft export: ${s.trajectories} successful trajectories of ${s.tasks} tasks, ${s.records} records${out ? ` -> ${out}` : ''}`);
  for (const f of s.failed.slice(0, 10)) log(`  not exported (the solver did not succeed): ${f}`);
  return 0;
}
