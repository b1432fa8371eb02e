// `owrl tasks validate|sample|suites|import`: checks JSONL task files line by line (every error as
// `FILE:LINE: field: message`), samples tasks of a bundled suite as JSONL (same flags → same
// bytes), lists the bundled suites with their families and difficulties, and imports published
// benchmark task files (WebVoyager, Online-Mind2Web) as owrl task JSONL.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fromJson, SCHEMA_VERSION, TaskSchema, type Task } from '@owrl/proto';
import {
  BENCHMARK_FORMATS,
  DEFAULT_DATA_SEED,
  DEFAULT_IMPORT_DIFFICULTY,
  formatTaskFile,
  generateSuiteTasks,
  importBenchmarkText,
  isTaskError,
  parseTaskLine,
  SUITES,
  validateTask,
  type BenchmarkFormat,
} from '@owrl/tasks';
import { UsageError } from './usage.js';

export const TASKS_HELP = `usage:
  owrl tasks validate FILE...
      Check JSONL task files: prints "FILE: N tasks OK", or every error as "FILE:LINE: field: message"
      (exit status 1 when any file has one). Tasks without a verifier (judged by the model) are valid.
  owrl tasks sample --suite NAME --n N [--seed S] [--base-url URL] [--difficulties 1,2]
                    [--families a,b] [--data-seed D]
      Print N tasks of a bundled suite as JSONL (same flags → byte-identical output). --base-url is the
      sites server origin (default http://127.0.0.1:8400); --data-seed must equal its OWRL_SITES_SEED.
  owrl tasks suites [--json]
      List the bundled suites with their families, difficulties and checks.
  owrl tasks import --format webvoyager|mind2web FILE [--out FILE] [--suite NAME] [--difficulty N]
      Convert a published benchmark task file (JSON Lines or a JSON array) into owrl task JSONL on
      stdout or --out: start URL, instruction, the site as family, the source id and fields as
      metadata, no verifier (the judge model decides). Records that cannot be converted are reported
      on stderr as "FILE:LINE: field: message" and skipped (exit status 1 when there is one).
      --difficulty is used where the source gives no length (default ${DEFAULT_IMPORT_DIFFICULTY}).
`;

const DEFAULT_BASE_URL = 'http://127.0.0.1:8400';

/** Generator option names (TaskError.field) → the flag a user typed. */
const FLAG_OF: Record<string, string> = {
  n: '--n',
  seed: '--seed',
  baseUrl: '--base-url',
  difficulties: '--difficulties',
  families: '--families',
  catalogSeed: '--data-seed',
  dataSeed: '--data-seed',
  suite: '--suite',
};

/** Writes `text` and resolves once it is flushed (so a following process.exit loses nothing). */
function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (text === '') return Promise.resolve();
  return new Promise((resolve, reject) => stream.write(text, (err) => (err ? reject(err) : resolve())));
}

interface LineError {
  line: number;
  field: string;
  message: string;
}

/** Field of a proto JSON decoding error (`key "foo" is unknown`...), '' when it names none. */
function decodeField(message: string): string {
  const name = /field "?([A-Za-z_][\w.]*)"?|key "([^"]+)"/.exec(message)?.slice(1).find((x) => x !== undefined) ?? '';
  return name.replace(/^owrl\.v1\./, '').replace(/^Task\./, '');
}

/** Every problem of one JSONL line (empty when it is a valid task). */
function lineErrors(text: string, lineNo: number): { task: Task | null; errors: LineError[] } {
  try {
    return { task: parseTaskLine(text, lineNo), errors: [] };
  } catch (e) {
    if (!isTaskError(e)) throw e;
    const message = e.message.replace(/^line \d+: /, '');
    // A record that decodes but breaks several rules: list each rule on its own line.
    let decoded: Task | null = null;
    try {
      decoded = fromJson(TaskSchema, JSON.parse(text) as Parameters<typeof fromJson>[1]);
    } catch {
      decoded = null;
    }
    if (decoded !== null && e.field !== undefined) {
      if (decoded.schemaVersion === 0) decoded.schemaVersion = SCHEMA_VERSION;
      const issues = validateTask(decoded);
      if (issues.length > 0) return { task: null, errors: issues.map((i) => ({ line: lineNo, field: i.field, message: i.message })) };
    }
    const field = e.field ?? (message.startsWith('not valid JSON') ? 'json' : decodeField(message) || 'task');
    return { task: null, errors: [{ line: lineNo, field, message }] };
  }
}

/** Errors of a whole file's text; `count` is the number of valid tasks. */
export function checkTaskText(text: string): { count: number; errors: LineError[] } {
  const errors: LineError[] = [];
  const seen = new Map<string, number>();
  let count = 0;
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const r = lineErrors(line, i + 1);
    errors.push(...r.errors);
    if (r.task === null) return;
    const prev = seen.get(r.task.id);
    if (prev !== undefined) {
      errors.push({ line: i + 1, field: 'id', message: `id ${JSON.stringify(r.task.id)} repeats line ${prev}` });
      return;
    }
    seen.set(r.task.id, i + 1);
    count++;
  });
  return { count, errors };
}

async function validate(files: string[]): Promise<number> {
  if (files.length === 0) throw new UsageError(`tasks validate needs at least one FILE\n\n${TASKS_HELP}`);
  let failed = false;
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      failed = true;
      await write(process.stdout, `${file}: cannot read: ${(e as Error).message}\n`);
      continue;
    }
    const { count, errors } = checkTaskText(text);
    if (errors.length === 0) {
      await write(process.stdout, `${file}: ${count} task${count === 1 ? '' : 's'} OK\n`);
      continue;
    }
    failed = true;
    await write(process.stdout, errors.map((x) => `${file}:${x.line}: ${x.field}: ${x.message}\n`).join(''));
  }
  return failed ? 1 : 0;
}

function intFlag(flag: string, v: string | undefined, def: number | undefined, min: number): number {
  if (v === undefined) {
    if (def === undefined) throw new UsageError(`${flag} is required\n\n${TASKS_HELP}`);
    return def;
  }
  if (!/^-?\d+$/.test(v.trim()) || !Number.isSafeInteger(Number(v)) || Number(v) < min) {
    throw new UsageError(`${flag} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  }
  return Number(v);
}

function listFlag(v: string | undefined): string[] {
  return (v ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

async function sample(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      suite: { type: 'string' },
      n: { type: 'string' },
      seed: { type: 'string' },
      'base-url': { type: 'string' },
      difficulties: { type: 'string' },
      families: { type: 'string' },
      'data-seed': { type: 'string' },
    },
  });
  if (values.suite === undefined || values.suite === '') throw new UsageError(`--suite is required (suites: ${SUITES.map((s) => s.name).join(', ')})`);
  const n = intFlag('--n', values.n, undefined, 0);
  const seed = intFlag('--seed', values.seed, 0, -0x80000000);
  const dataSeed = intFlag('--data-seed', values['data-seed'], DEFAULT_DATA_SEED, -0x80000000);
  const difficulties = listFlag(values.difficulties).map((d) => {
    if (!/^\d+$/.test(d) || Number(d) < 1) throw new UsageError(`--difficulties must be positive integers separated by commas, got ${JSON.stringify(d)}`);
    return Number(d);
  });
  const baseUrl = values['base-url'] ?? DEFAULT_BASE_URL;
  let text: string;
  try {
    text = formatTaskFile(generateSuiteTasks(values.suite, { seed, n, baseUrl, difficulties, families: listFlag(values.families), dataSeed }));
  } catch (e) {
    if (!isTaskError(e)) throw e;
    const flag = e.field === undefined ? undefined : FLAG_OF[e.field];
    throw new UsageError(flag === undefined ? e.message : `${flag}: ${e.message}`, { cause: e });
  }
  await write(process.stdout, text);
  return 0;
}

async function suites(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
  if (values.json) {
    await write(process.stdout, `${JSON.stringify(SUITES.map((s) => ({ name: s.name, site: s.site, families: s.families })), null, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const s of SUITES) {
    const levels = [...new Set(s.families.map((f) => f.difficulty))].sort((a, b) => a - b);
    lines.push(`${s.name} (site /${s.site}/): ${s.families.length} families, difficulties ${levels.join(',')}`);
    const width = Math.max(...s.families.map((f) => f.name.length));
    for (const f of s.families) lines.push(`  ${f.name.padEnd(width)}  difficulty ${f.difficulty}  ${f.check}`);
  }
  await write(process.stdout, lines.map((l) => `${l}\n`).join(''));
  return 0;
}

async function importCmd(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { format: { type: 'string' }, out: { type: 'string' }, suite: { type: 'string' }, difficulty: { type: 'string' } },
  });
  const names = BENCHMARK_FORMATS.map((f) => f.name);
  if (values.format === undefined) throw new UsageError(`--format is required (${names.join(' or ')})\n\n${TASKS_HELP}`);
  if (!(names as readonly string[]).includes(values.format)) throw new UsageError(`--format ${JSON.stringify(values.format)} must be ${names.join(' or ')}`);
  const format = values.format as BenchmarkFormat;
  if (positionals.length !== 1) throw new UsageError(`tasks import needs exactly one FILE, got ${positionals.length}\n\n${TASKS_HELP}`);
  const file = positionals[0] ?? '';
  const difficulty = intFlag('--difficulty', values.difficulty, DEFAULT_IMPORT_DIFFICULTY, 1);
  const suite = values.suite;
  if (suite !== undefined && (suite.trim() === '' || /\s/.test(suite))) throw new UsageError(`--suite ${JSON.stringify(suite)} must be a non-empty word`);
  if (values.out !== undefined && path.resolve(values.out) === path.resolve(file)) throw new UsageError(`--out ${values.out} is the input file: write the tasks elsewhere`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    await write(process.stderr, `${file}: cannot read: ${(e as Error).message}\n`);
    return 1;
  }
  const r = importBenchmarkText(format, text, { difficulty, ...(suite !== undefined ? { suite } : {}) });
  const jsonl = formatTaskFile(r.tasks.map((t) => t.task));
  if (values.out !== undefined) {
    try {
      await writeFile(values.out, jsonl, 'utf8');
    } catch (e) {
      await write(process.stderr, `${values.out}: cannot write: ${(e as Error).message}\n`);
      return 1;
    }
  } else {
    await write(process.stdout, jsonl);
  }
  await write(process.stderr, r.errors.map((x) => `${file}:${x.line}: ${x.field}: ${x.message}\n`).join(''));
  const failed = new Set(r.errors.map((x) => x.line)).size;
  await write(
    process.stderr,
    `owrl tasks import: ${r.tasks.length} task${r.tasks.length === 1 ? '' : 's'} from ${file} (${format}, ${r.layout === 'array' ? 'JSON array' : 'JSON Lines'})` +
      `${values.out !== undefined ? ` written to ${values.out}` : ''}${failed > 0 ? `; ${failed} record${failed === 1 ? '' : 's'} not converted` : ''}\n`,
  );
  return r.errors.length > 0 ? 1 : 0;
}

/**
 * Runs `owrl tasks <sub> ...`; resolves to the exit status.
 * @throws UsageError (exit status 2) for an unknown subcommand, unknown or bad flags, an unknown
 *   suite or family, naming the flag.
 */
export async function runTasksCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    switch (sub) {
      case 'validate':
        return await validate(rest);
      case 'sample':
        return await sample(rest);
      case 'suites':
        return await suites(rest);
      case 'import':
        return await importCmd(rest);
      case undefined:
      case 'help':
      case '--help':
        await write(process.stdout, TASKS_HELP);
        return 0;
      default:
        throw new UsageError(`unknown tasks command ${JSON.stringify(sub)}\n\n${TASKS_HELP}`);
    }
  } catch (e) {
    // parseArgs reports unknown flags and missing values with its own error codes.
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((e as Error).message, { cause: e });
    throw e;
  }
}
