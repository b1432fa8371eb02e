// Conversion of published benchmark task records into owrl Tasks for the real web: WebVoyager
// (`data/WebVoyager_data.jsonl`: web_name, id, ques, web) and Online-Mind2Web
// (`Online_Mind2Web.json`: task_id, confirmed_task, website, reference_length, level). A task gets
// the start URL, the instruction, the suite, the site as its family, a difficulty (the reference
// length where the source has one), the source id and fields as metadata, and no verifier, so the
// judge model decides. Problems name the source's own field. Pure.
import { make, SCHEMA_VERSION, TaskSchema, type Task } from '@owrl/proto';
import { TaskError, TaskErrorCode } from './errors.js';
import { splitJsonRecords } from './json-records.js';
import { validateTask } from './task-validate.js';

export type BenchmarkFormat = 'webvoyager' | 'mind2web';

export interface BenchmarkFormatInfo {
  name: BenchmarkFormat;
  /** Benchmark name, written as metadata `source`. */
  source: string;
  /** Default suite (and id prefix) of the imported tasks. */
  suite: string;
  /** Fields each record must have. */
  required: readonly string[];
}

export const BENCHMARK_FORMATS: readonly BenchmarkFormatInfo[] = [
  { name: 'webvoyager', source: 'WebVoyager', suite: 'webvoyager', required: ['id', 'ques', 'web'] },
  { name: 'mind2web', source: 'Online-Mind2Web', suite: 'mind2web', required: ['task_id', 'confirmed_task', 'website'] },
];

/** Difficulty (steps) of an Online-Mind2Web level when the record has no reference_length. */
export const MIND2WEB_LEVEL_STEPS: Readonly<Record<string, number>> = { easy: 4, medium: 8, hard: 13 };

/** Difficulty of records that give no length (WebVoyager publishes none). */
export const DEFAULT_IMPORT_DIFFICULTY = 8;

export interface ImportOptions {
  /** Suite and id prefix; default the format's (`webvoyager`, `mind2web`). */
  suite?: string;
  /** Difficulty of records without a length or level. Default DEFAULT_IMPORT_DIFFICULTY. */
  difficulty?: number;
}

export interface ImportIssue {
  /** The source record's field (`ques`, `website`…), or `record` for the record as a whole. */
  field: string;
  message: string;
}

export type ImportResult = { task: Task } | { issues: ImportIssue[] };

type Rec = Record<string, unknown>;

/**
 * @throws TaskError TASK_BAD_ARGUMENT for an unknown format name.
 */
export function benchmarkFormat(name: string): BenchmarkFormatInfo {
  const f = BENCHMARK_FORMATS.find((x) => x.name === name);
  if (f === undefined) {
    throw new TaskError(TaskErrorCode.BadArgument, `format ${JSON.stringify(name)} is not one of ${BENCHMARK_FORMATS.map((x) => x.name).join(', ')}`, { field: 'format' });
  }
  return f;
}

/** A metadata value: strings as they are, anything else as JSON. */
function metaValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Lower-case words joined by '-' ("Google Flights" → "google-flights"). */
export function slug(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function text(r: Rec, field: string, issues: ImportIssue[], hint: string): string {
  const v = r[field];
  if (v === undefined || v === null) {
    issues.push({ field, message: `${field} is missing${hint}` });
    return '';
  }
  if (typeof v !== 'string' && typeof v !== 'number') {
    issues.push({ field, message: `${field} must be a string, got ${JSON.stringify(v)}` });
    return '';
  }
  const s = String(v).trim();
  if (s === '') issues.push({ field, message: `${field} is empty` });
  return s;
}

/** The http(s) URL of a field, as written (trimmed). */
function url(r: Rec, field: string, issues: ImportIssue[], hint: string): { url: URL; text: string } | undefined {
  const s = text(r, field, issues, hint);
  if (s === '') return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    issues.push({ field, message: `${field} ${JSON.stringify(s)} is not a URL` });
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    issues.push({ field, message: `${field} ${JSON.stringify(s)} must be an http(s) URL` });
    return undefined;
  }
  return { url: u, text: s };
}

function host(u: { url: URL } | undefined): string {
  return u === undefined ? '' : u.url.hostname.replace(/^www\./, '');
}

/** " (the record has confirmed_task: is this --format mind2web?)" when the record fits another format. */
function otherFormatHint(r: Rec, format: BenchmarkFormat): string {
  for (const f of BENCHMARK_FORMATS) {
    if (f.name === format) continue;
    const has = f.required.filter((k) => k in r);
    if (has.length === f.required.length) return ` (the record has ${has.join(', ')}: is this --format ${f.name}?)`;
  }
  return '';
}

function positiveInt(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : undefined;
}

/**
 * One source record as a Task, or every reason it cannot be one.
 * @throws TaskError TASK_BAD_ARGUMENT for a bad `difficulty` or `suite` option.
 */
export function importBenchmarkRecord(format: BenchmarkFormat, record: unknown, opts: ImportOptions = {}): ImportResult {
  const info = benchmarkFormat(format);
  const suite = opts.suite ?? info.suite;
  if (suite.trim() === '' || /\s/.test(suite)) throw new TaskError(TaskErrorCode.BadArgument, `suite ${JSON.stringify(suite)} must be a non-empty word`, { field: 'suite' });
  const fallback = opts.difficulty ?? DEFAULT_IMPORT_DIFFICULTY;
  if (!Number.isInteger(fallback) || fallback < 1) throw new TaskError(TaskErrorCode.BadArgument, `difficulty ${fallback} must be a positive integer`, { field: 'difficulty' });
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return { issues: [{ field: 'record', message: `a ${info.source} record must be a JSON object, got ${JSON.stringify(record)?.slice(0, 60)}` }] };
  }
  const r = record as Rec;
  const issues: ImportIssue[] = [];
  const hint = otherFormatHint(r, format);
  let sourceId: string;
  let instruction: string;
  let start: { url: URL; text: string } | undefined;
  let family = '';
  let difficulty = fallback;
  let instructionField: string;
  if (format === 'webvoyager') {
    sourceId = text(r, 'id', issues, hint);
    instructionField = 'ques';
    instruction = text(r, 'ques', issues, hint);
    start = url(r, 'web', issues, hint);
    const site = r['web_name'];
    if (site !== undefined && typeof site !== 'string') issues.push({ field: 'web_name', message: `web_name must be a string, got ${JSON.stringify(site)}` });
    family = typeof site === 'string' && site.trim() !== '' ? slug(site) : host(start);
  } else {
    sourceId = text(r, 'task_id', issues, hint);
    // The dataset card calls the instruction task_description; the published file confirmed_task.
    instructionField = r['confirmed_task'] === undefined && r['task_description'] !== undefined ? 'task_description' : 'confirmed_task';
    instruction = text(r, instructionField, issues, hint);
    start = url(r, 'website', issues, hint);
    family = host(start);
    const len = r['reference_length'];
    const level = r['level'];
    if (len !== undefined && len !== null) {
      const n = positiveInt(len);
      if (n === undefined) issues.push({ field: 'reference_length', message: `reference_length ${JSON.stringify(len)} must be a positive integer (steps of a human solution)` });
      else difficulty = n;
    } else if (level !== undefined && level !== null) {
      const n = typeof level === 'string' ? MIND2WEB_LEVEL_STEPS[level.trim().toLowerCase()] : undefined;
      if (n === undefined) issues.push({ field: 'level', message: `level ${JSON.stringify(level)} must be easy, medium or hard` });
      else difficulty = n;
    }
  }
  if (issues.length > 0) return { issues };
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(r)) if (k !== instructionField && v !== undefined && v !== null) metadata[k] = metaValue(v);
  metadata['source'] = info.source;
  metadata['source_id'] = sourceId;
  const task = make(TaskSchema, {
    schemaVersion: SCHEMA_VERSION,
    id: `${suite}/${sourceId.replace(/\s+/g, '_')}`,
    suite,
    startUrl: start?.text ?? '',
    instruction,
    difficulty,
    family,
    metadata,
  });
  const problems = validateTask(task);
  if (problems.length > 0) return { issues: problems.map((p) => ({ field: p.field, message: p.message })) };
  return { task };
}

export interface ImportedTask {
  /** Line of the source file the record starts on. */
  line: number;
  task: Task;
}

export interface ImportError {
  line: number;
  field: string;
  message: string;
}

export interface ImportSummary {
  layout: 'jsonl' | 'array';
  tasks: ImportedTask[];
  /** One entry per problem, in file order; a record with several problems has several. */
  errors: ImportError[];
  /** Records read (converted or not). */
  records: number;
}

/**
 * Converts a whole source file (JSON Lines or one JSON array): every record that converts becomes
 * a task; every other one is reported at its line and the rest go on. A repeated id is an error of
 * the later record.
 * @throws TaskError TASK_BAD_ARGUMENT for an unknown format or a bad option.
 */
export function importBenchmarkText(format: BenchmarkFormat, text: string, opts: ImportOptions = {}): ImportSummary {
  const info = benchmarkFormat(format);
  const idField = format === 'webvoyager' ? 'id' : 'task_id';
  const { layout, records, fatal } = splitJsonRecords(text);
  const tasks: ImportedTask[] = [];
  const errors: ImportError[] = [];
  const seen = new Map<string, number>();
  for (const rec of records) {
    if ('error' in rec) {
      errors.push({ line: rec.line, field: 'json', message: rec.error });
      continue;
    }
    const r = importBenchmarkRecord(info.name, rec.value, opts);
    if ('issues' in r) {
      for (const i of r.issues) errors.push({ line: rec.line, ...i });
      continue;
    }
    const prev = seen.get(r.task.id);
    if (prev !== undefined) {
      errors.push({ line: rec.line, field: idField, message: `id ${JSON.stringify(r.task.id)} repeats line ${prev}` });
      continue;
    }
    seen.set(r.task.id, rec.line);
    tasks.push({ line: rec.line, task: r.task });
  }
  if (fatal !== undefined) errors.push({ line: fatal.line, field: 'json', message: fatal.message });
  return { layout, tasks, errors, records: records.length };
}
