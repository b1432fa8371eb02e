// Errors of the task layer: bad generator arguments, invalid task records, unreadable task files.
import { OwrlError } from '@owrl/core';

export const TaskErrorCode = {
  /** A generator or helper got an argument it cannot use (n too large, unknown difficulty...). */
  BadArgument: 'TASK_BAD_ARGUMENT',
  /** A task record failed validation (names the field and, in files, the line). */
  Invalid: 'TASK_INVALID',
  /** A task file could not be read or written. */
  FileIo: 'TASK_FILE_IO',
  /** A site-state spec (`{"cart":{...},"exact":bool}`) is malformed. */
  BadSpec: 'TASK_BAD_SPEC',
} as const;
export type TaskErrorCode = (typeof TaskErrorCode)[keyof typeof TaskErrorCode];

export class TaskError extends OwrlError<TaskErrorCode> {
  override readonly name = 'TaskError';
  /** 1-based line of a task file the error is about, when it comes from a file. */
  readonly line: number | undefined;
  /** Proto field name (e.g. `start_url`) the error is about, when there is one. */
  readonly field: string | undefined;

  constructor(
    code: TaskErrorCode,
    message: string,
    options: { cause?: unknown; line?: number | undefined; field?: string | undefined } = {},
  ) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.line = options.line;
    this.field = options.field;
  }
}

export function isTaskError(e: unknown, code?: TaskErrorCode): e is TaskError {
  return e instanceof TaskError && (code === undefined || e.code === code);
}
