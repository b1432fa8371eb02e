// Reading the learner's own JSON files back (checkpoint.json, round.json, the round journal):
// every value is checked before it is used, and whatever does not fit — a file cut short, a field
// missing or of the wrong type — is a CheckpointError naming the file and the field, never a
// value used as cast.
import fs from 'node:fs';
import { CheckpointError, FatalRunCode } from './errors.js';

/** Where a value sits: the file (and what kind of file, for the message), the line of a JSON-lines file, the path of objects above it. */
export interface Where {
  what: string;
  file: string;
  line?: number;
  path?: readonly string[];
}

type FieldKind = 'integer' | 'number' | 'string' | 'object' | 'array';

/** `where` one object further down: the value of `key`. */
export function under(where: Where, key: string): Where {
  return { ...where, path: [...(where.path ?? []), key] };
}

/** The field `key` of `where` as a CheckpointError names it: `loop.settledIds`, `line 3: ledger.nextGroup`. */
function fieldName(where: Where, key?: string): string {
  const dotted = dottedPath([...(where.path ?? []), ...(key === undefined ? [] : [key])]);
  return where.line === undefined ? dotted : `line ${where.line}${dotted ? `: ${dotted}` : ''}`;
}

/** The message's lead: `checkpoint <file>`, then the line and the object path when there are any. */
function placeOf(where: Where): string {
  const at = fieldName(where);
  return `${where.what} ${where.file}${at ? `: ${at}` : ''}`;
}

/** A CHECKPOINT_CORRUPT error at field `key` of `where`: `<place>: <problem>`. */
export function corrupt(where: Where, key: string | undefined, problem: string, cause?: unknown): CheckpointError {
  return new CheckpointError(FatalRunCode.CheckpointCorrupt, where.file, fieldName(where, key), `${placeOf(where)}: ${problem}`, cause === undefined ? undefined : { cause });
}

/** Parses `text` (the content of `where`), or throws naming the field it breaks off in. */
export function parseJson(text: string, where: Where): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const at = jsonPathAt(text, parsePosition(e as Error, text));
    const w = { ...where, path: [...(where.path ?? []), ...(at === null ? [] : at)] };
    const lead = at === null ? '' : at.length > 0 ? ` in or after field ${dottedPath(at)}` : ' at its top level';
    // `<file>: line 3 is not valid JSON …` in a file of JSON lines, `<file>: not valid JSON …` else.
    const subject = where.line === undefined ? `${placeOf(where)}:` : `${placeOf(where)} is`;
    throw new CheckpointError(FatalRunCode.CheckpointCorrupt, where.file, fieldName(w), `${subject} not valid JSON${lead} (${(e as Error).message})`, { cause: e });
  }
}

/** `v` as an object, or an error naming `where`. */
export function asObject(v: unknown, where: Where): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw corrupt(where, undefined, 'expected a JSON object');
  return v as Record<string, unknown>;
}

/** A JSON file's top-level object, or an error naming the file and the field it breaks off in. */
export function readObject(file: string, what: string): Record<string, unknown> {
  const where = { what, file };
  return asObject(parseJson(fs.readFileSync(file, 'utf8'), where), where);
}

/** Checks `o[key]` is of `kind` (an absent `optional` one passes). @throws CheckpointError naming the field and what it holds. */
export function field(o: Record<string, unknown>, key: string, kind: FieldKind, where: Where, optional = false): void {
  const v = o[key];
  if (v === undefined && optional) return;
  const ok =
    kind === 'integer' ? Number.isSafeInteger(v) && (v as number) >= 0
    : kind === 'number' ? typeof v === 'number' && Number.isFinite(v)
    : kind === 'string' ? typeof v === 'string' && v !== ''
    : kind === 'array' ? Array.isArray(v)
    : typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!ok) {
    const expected = kind === 'integer' ? 'a non-negative integer' : `a${kind === 'object' || kind === 'array' ? 'n' : ''} ${kind}`;
    throw corrupt(where, key, `field ${key} must be ${expected}, got ${JSON.stringify(v) ?? 'nothing'}`);
  }
}

/** Keys joined by dots, array indices in brackets: `loop.settledIds[2]`. */
function dottedPath(path: readonly string[]): string {
  return path.map((p, i) => (p.startsWith('[') || i === 0 ? p : `.${p}`)).join('');
}

/** Where JSON.parse stopped: the position its message names, the end of the text when it ran out, else null. */
function parsePosition(e: Error, text: string): number | null {
  const m = /at position (\d+)/.exec(e.message);
  if (m) return Number(m[1]);
  return /end of JSON input/.test(e.message) ? text.length : null;
}

type Frame = { kind: 'object'; key: string | null } | { kind: 'array'; index: number };

/**
 * The path of keys and indices (`['loop', 'settledIds', '[2]']`) of the value JSON `text` was in at
 * `pos`, as far as the text before it says: the last key read at each depth. `[]`: the top level;
 * null: `pos` unknown.
 */
export function jsonPathAt(text: string, pos: number | null): string[] | null {
  if (pos === null) return null;
  const stack: Frame[] = [];
  let inString = false;
  let escaped = false;
  let str = '';
  let keyNext = false;
  for (let i = 0; i < Math.min(pos, text.length); i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') {
        escaped = true;
        continue;
      } else if (c === '"') {
        inString = false;
        if (keyNext && top?.kind === 'object') top.key = str;
        continue;
      }
      str += c;
      continue;
    }
    if (c === '"') {
      inString = true;
      str = '';
    } else if (c === '{') {
      stack.push({ kind: 'object', key: null });
      keyNext = true;
    } else if (c === '[') {
      stack.push({ kind: 'array', index: 0 });
      keyNext = false;
    } else if (c === '}' || c === ']') {
      stack.pop();
      keyNext = false;
    } else if (c === ':') keyNext = false;
    else if (c === ',') {
      if (top?.kind === 'array') top.index += 1;
      keyNext = top?.kind === 'object';
    }
  }
  return stack.flatMap((f) => (f.kind === 'array' ? [`[${f.index}]`] : f.key === null ? [] : [f.key]));
}
