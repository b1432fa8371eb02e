// JSONL task files: one `owrl.v1.Task` per line in its proto3 JSON form (lowerCamelCase or
// proto field names on input, lowerCamelCase on output). Blank lines are skipped. Every error
// names the line and the field.
import { readFile, writeFile } from 'node:fs/promises';
import { clone, fromJson, SCHEMA_VERSION, TaskSchema, toJson, type Task } from '@owrl/proto';
import { TaskError, TaskErrorCode } from './errors.js';
import { validateTask } from './task-validate.js';

function invalid(lineNo: number, field: string | undefined, message: string, cause?: unknown): TaskError {
  return new TaskError(TaskErrorCode.Invalid, `line ${lineNo}: ${message}`, { line: lineNo, field, cause });
}

// proto3 JSON accepts uint32 as a number or a decimal string; anything else gets a message that
// names the field before the generic JSON decoder sees it.
function checkPositiveInt(obj: Record<string, unknown>, keys: readonly string[], field: string, lineNo: number): void {
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined || v === null) continue;
    const num = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
    if (typeof num !== 'number' || !Number.isInteger(num) || num < 1) {
      throw invalid(lineNo, field, `${field} ${JSON.stringify(v)} must be a positive integer`);
    }
  }
}

/**
 * Parses and validates one JSONL line (1-based `lineNo`, used in messages). A missing
 * `schemaVersion` means the current one.
 * @throws TaskError TASK_INVALID `line N: <field> ...` for bad JSON, unknown fields, wrong types
 *   or any {@link validateTask} issue (all issues of the line, joined by "; ").
 */
export function parseTaskLine(line: string, lineNo: number): Task {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (cause) {
    throw invalid(lineNo, undefined, `not valid JSON (${(cause as Error).message})`, cause);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid(lineNo, undefined, 'a task line must be a JSON object');
  }
  checkPositiveInt(raw as Record<string, unknown>, ['difficulty'], 'difficulty', lineNo);
  let task: Task;
  try {
    task = fromJson(TaskSchema, raw as Parameters<typeof fromJson>[1]);
  } catch (cause) {
    throw invalid(lineNo, undefined, (cause as Error).message, cause);
  }
  if (task.schemaVersion === 0) task.schemaVersion = SCHEMA_VERSION;
  assertValidTask(task, lineNo);
  return task;
}

/**
 * Throws when `task` has validation issues; `lineNo` (when given) prefixes the message.
 * @throws TaskError TASK_INVALID naming the first issue's field.
 */
export function assertValidTask(task: Task, lineNo?: number): void {
  const issues = validateTask(task);
  const first = issues[0];
  if (first === undefined) return;
  const message = issues.map((i) => i.message).join('; ');
  if (lineNo !== undefined) throw invalid(lineNo, first.field, message);
  const who = task.id === '' ? 'task' : `task ${task.id}`;
  throw new TaskError(TaskErrorCode.Invalid, `${who}: ${message}`, { field: first.field });
}

/** One JSONL line (no newline) for a task; validates it first. */
export function formatTaskLine(task: Task): string {
  assertValidTask(task);
  let t = task;
  if (t.schemaVersion === 0) {
    t = clone(TaskSchema, task);
    t.schemaVersion = SCHEMA_VERSION;
  }
  return JSON.stringify(toJson(TaskSchema, t));
}

/**
 * Parses a whole JSONL text. Blank lines are skipped; duplicate ids are rejected.
 * @throws TaskError TASK_INVALID naming the line and field of the first bad line.
 */
export function parseTaskFile(text: string): Task[] {
  const tasks: Task[] = [];
  const seen = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const lineNo = i + 1;
    const task = parseTaskLine(line, lineNo);
    const prev = seen.get(task.id);
    if (prev !== undefined) throw invalid(lineNo, 'id', `id ${JSON.stringify(task.id)} repeats line ${prev}`);
    seen.set(task.id, lineNo);
    tasks.push(task);
  });
  return tasks;
}

/** Serialises tasks as JSONL (one line each, trailing newline). */
export function formatTaskFile(tasks: readonly Task[]): string {
  return tasks.map((t) => `${formatTaskLine(t)}\n`).join('');
}

/**
 * Reads and validates a JSONL task file.
 * @throws TaskError TASK_FILE_IO when the file cannot be read, TASK_INVALID (with the path) for a
 *   bad line.
 */
export async function readTaskFile(path: string): Promise<Task[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new TaskError(TaskErrorCode.FileIo, `cannot read task file ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    return parseTaskFile(text);
  } catch (e) {
    if (e instanceof TaskError) {
      throw new TaskError(e.code, `${path}: ${e.message}`, { cause: e, line: e.line, field: e.field });
    }
    throw e;
  }
}

/**
 * Validates and writes tasks as a JSONL file (replacing it).
 * @throws TaskError TASK_INVALID for an invalid task, TASK_FILE_IO when the file cannot be written.
 */
export async function writeTaskFile(path: string, tasks: readonly Task[]): Promise<void> {
  const text = formatTaskFile(tasks);
  try {
    await writeFile(path, text, 'utf8');
  } catch (cause) {
    throw new TaskError(TaskErrorCode.FileIo, `cannot write task file ${path}: ${(cause as Error).message}`, { cause });
  }
}
