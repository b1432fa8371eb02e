// Reading a run file: YAML parsed with node positions (the `yaml` package), values set from the
// command line applied on top, then the schema and the cross-key rules checked. Every problem is
// reported at once, each as `FILE:LINE:COL: key: message` (or `--flag: key: message` for a value
// a flag set), unknown keys with the nearest valid name.
import fs from 'node:fs';
import path from 'node:path';
import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { RunFileError, RunFileErrorCode, type RunFileProblem } from './errors.js';
import { nearest } from './nearest.js';
import { checkRules } from './rules.js';
import { runFileSchema, type RunFile } from './schema.js';

export type KeyPath = (string | number)[];

/** A value set from outside the file (a command-line flag), reported under its source. */
export interface RunFileOverride {
  path: KeyPath;
  value: unknown;
  /** What set it, e.g. `--rounds`. */
  source: string;
}

export interface LoadedRunFile {
  /** Absolute path of the file. */
  file: string;
  /** Its folder: relative paths in the file (task files, the judge model) are relative to it. */
  dir: string;
  /** The checked contents, overrides applied. */
  run: RunFile;
  /** The YAML document, overrides applied (comments kept), for positions and for writing it back. */
  doc: Document;
  overrides: readonly RunFileOverride[];
  /** Where a key is: `FILE:LINE:COL`, or the flag that set it. */
  where(p: KeyPath): string;
}

/** `recipe.curriculum[1].rounds`. */
export function keyName(p: KeyPath): string {
  return p.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s === '' ? k : `${s}.${k}`), '');
}

/** Parses and checks run-file text. @throws RunFileError RUN_FILE_INVALID with every problem. */
export function parseRunFile(text: string, file: string, overrides: readonly RunFileOverride[] = []): LoadedRunFile {
  const abs = path.resolve(file);
  const shown = file;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): string => {
    const p = lines.linePos(offset);
    return `${shown}:${p.line}:${p.col}`;
  };
  if (doc.errors.length > 0) {
    throw new RunFileError(
      RunFileErrorCode.Invalid,
      doc.errors.map((e) => ({ where: at(e.pos[0]), key: 'yaml', message: e.message.split('\n')[0] ?? e.message })),
    );
  }
  if (doc.contents === null || !isMap(doc.contents)) {
    throw new RunFileError(RunFileErrorCode.Invalid, [{ where: `${shown}:1:1`, key: '(file)', message: 'a run file is a YAML mapping of sections (tasks, policy, trainer, judge, recipe, fleet, state, nats; docs/run-file.md)' }]);
  }
  for (const o of overrides) doc.setIn(o.path, o.value);
  const data: unknown = doc.toJS();
  const locate = new Locator(doc, at, overrides, shown);
  const parsed = runFileSchema.safeParse(data);
  let problems: RunFileProblem[];
  if (!parsed.success) {
    problems = parsed.error.issues.flatMap((i) => issueProblems(i, data, locate));
  } else {
    problems = checkRules(parsed.data).map((i) => ({ where: locate.key(i.path), key: keyName(i.path), message: i.message }));
  }
  if (problems.length > 0) throw new RunFileError(RunFileErrorCode.Invalid, sortProblems(problems));
  return { file: abs, dir: path.dirname(abs), run: (parsed as { data: RunFile }).data, doc, overrides, where: (p) => locate.key(p) };
}

/** Reads and checks a run file. @throws RunFileError (RUN_FILE_UNREADABLE, RUN_FILE_INVALID). */
export function readRunFile(file: string, overrides: readonly RunFileOverride[] = []): LoadedRunFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new RunFileError(RunFileErrorCode.Unreadable, [{ where: file, key: '(file)', message: `cannot read it: ${(e as Error).message}` }], { cause: e });
  }
  return parseRunFile(text, file, overrides);
}

/** A path named in the run file, resolved against the file's folder. */
export function resolveRunPath(loaded: Pick<LoadedRunFile, 'dir'>, p: string): string {
  return path.resolve(loaded.dir, p);
}

function sortProblems(ps: RunFileProblem[]): RunFileProblem[] {
  const pos = (w: string): [number, number] => {
    const m = /:(\d+):(\d+)$/.exec(w);
    return m ? [Number(m[1]), Number(m[2])] : [0, 0];
  };
  return ps
    .map((p, i) => ({ p, i, k: pos(p.where) }))
    .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.i - b.i)
    .map((x) => x.p);
}

/** Where a key or value is: its override's flag, else its position in the file (or its nearest enclosing key's). */
class Locator {
  constructor(
    private readonly doc: Document,
    private readonly at: (offset: number) => string,
    private readonly overrides: readonly RunFileOverride[],
    private readonly file: string,
  ) {}

  #override(p: KeyPath): string | undefined {
    for (let n = p.length; n >= 1; n--) {
      const o = this.overrides.find((x) => x.path.length === n && x.path.every((k, i) => k === p[i]));
      if (o) return o.source;
    }
    return undefined;
  }

  /** The key of `p` (the last element), or its value when `p` ends in a list index. */
  key(p: KeyPath): string {
    const o = this.#override(p);
    if (o !== undefined) return o;
    for (let n = p.length; n >= 1; n--) {
      const parent = n === 1 ? this.doc.contents : this.doc.getIn(p.slice(0, n - 1), true);
      const last = p[n - 1];
      if (typeof last === 'string' && isMap(parent)) {
        const pair = parent.items.find((it) => isPair(it) && isScalar(it.key) && it.key.value === last);
        const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
        if (range) return this.at(range[0]);
      } else {
        const node = this.doc.getIn(p.slice(0, n), true) as { range?: [number, number, number] } | undefined;
        if (node?.range) return this.at(node.range[0]);
      }
    }
    return `${this.file}:1:1`;
  }

  /** The value at `p` (its key when the value is missing). */
  value(p: KeyPath): string {
    const o = this.#override(p);
    if (o !== undefined) return o;
    const node = p.length === 0 ? this.doc.contents : (this.doc.getIn(p, true) as { range?: [number, number, number] } | undefined);
    if (node?.range) return this.at(node.range[0]);
    return this.key(p);
  }
}

function get(data: unknown, p: KeyPath): unknown {
  let v = data;
  for (const k of p) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/** A value as a message shows it. */
function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'an empty value (null)';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return JSON.stringify(v);
}

const WANT: Record<string, string> = { number: 'a number', int: 'an integer', string: 'a string', boolean: 'true or false', array: 'a list', object: 'a mapping' };

type Issue = z.core.$ZodIssue;

function issueProblems(issue: Issue, data: unknown, locate: Locator): RunFileProblem[] {
  const p = issue.path as KeyPath;
  const value = get(data, p);
  const one = (message: string, where = locate.value(p)): RunFileProblem[] => [{ where, key: keyName(p) || '(file)', message }];
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((k) => {
        const kp = [...p, k];
        const hint = nearest(k, knownKeys(p), allKeyPaths());
        return { where: locate.key(kp), key: keyName(kp), message: `unknown key${hint}` };
      });
    case 'invalid_type':
      if (value === undefined) return one('is required', locate.key(p));
      if (issue.expected === 'int' && typeof value === 'number') return one(`must be an integer, got ${describe(value)}`);
      return one(`must be ${WANT[issue.expected === 'number' && isIntAt(p) ? 'int' : issue.expected] ?? issue.expected}, got ${describe(value)}`);
    case 'too_small': {
      const min = String(issue.minimum);
      if (issue.origin === 'array') return one(`must list at least ${min} ${Number(min) === 1 ? 'entry' : 'entries'}`);
      if (issue.origin === 'string') return one('must not be empty');
      return one(`must be ${issue.inclusive ? '>=' : '>'} ${min}, got ${describe(value)}`);
    }
    case 'too_big': {
      const max = String(issue.maximum);
      if (issue.origin === 'array') return one(`must list at most ${max} entries`);
      return one(`must be ${issue.inclusive ? '<=' : '<'} ${max}, got ${describe(value)}`);
    }
    case 'invalid_value': {
      const choices = issue.values.map(String);
      const near = typeof value === 'string' ? nearest(value, choices, []) : '';
      const hint = near.startsWith(' (did') ? near : '';
      return one(`must be one of ${choices.join(', ')}, got ${describe(value)}${hint}`);
    }
    case 'invalid_format':
      return one(`${issue.message}, got ${describe(value)}`);
    default:
      return one(issue.message);
  }
}

/** The schema of the value at `p`. */
function schemaAt(p: KeyPath): z.ZodType | undefined {
  let s: z.ZodType | undefined = runFileSchema;
  for (const k of p) {
    s = unwrap(s);
    if (s instanceof z.ZodObject) s = (s.shape as Record<string, z.ZodType>)[String(k)];
    else if (s instanceof z.ZodArray) s = s.element as z.ZodType;
    else return undefined;
  }
  return unwrap(s);
}

function isIntAt(p: KeyPath): boolean {
  const s = schemaAt(p);
  return s instanceof z.ZodNumber && s.isInt === true;
}

/** The keys a mapping at `p` may hold (from the schema). */
function knownKeys(p: KeyPath): string[] {
  const s = schemaAt(p);
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

function unwrap(s: z.ZodType | undefined): z.ZodType | undefined {
  let cur = s;
  while (cur instanceof z.ZodOptional) cur = cur.unwrap() as z.ZodType;
  return cur;
}

let allPaths: string[] | null = null;
/** Every dotted key of the schema (for "did you mean recipe.rounds?" when a key is in the wrong section). */
function allKeyPaths(): string[] {
  if (allPaths) return allPaths;
  const out: string[] = [];
  const walk = (s: z.ZodType | undefined, prefix: string): void => {
    const u = unwrap(s);
    if (u instanceof z.ZodObject) {
      for (const [k, v] of Object.entries(u.shape as Record<string, z.ZodType>)) {
        const name = prefix ? `${prefix}.${k}` : k;
        out.push(name);
        walk(v, name);
      }
    }
  };
  walk(runFileSchema, '');
  allPaths = out;
  return out;
}
