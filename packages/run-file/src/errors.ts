// Errors of the run file: a file that cannot be read, does not parse, or breaks the schema. Each
// problem names where it is (FILE:LINE:COL, or the command-line flag that set the value), the key
// and what is wrong.
import { OwrlError } from '@owrl/core';

export const RunFileErrorCode = {
  /** The file cannot be read. */
  Unreadable: 'RUN_FILE_UNREADABLE',
  /** Not YAML, or YAML that breaks the schema (unknown key, wrong type, value out of range). */
  Invalid: 'RUN_FILE_INVALID',
  /** A secret the file names (`api_key_env: X`) is not in the environment. */
  MissingSecret: 'RUN_FILE_MISSING_SECRET',
  /** A resumed run's file changed in a way the run cannot absorb. */
  ResumeConflict: 'RUN_FILE_RESUME_CONFLICT',
} as const;
export type RunFileErrorCode = (typeof RunFileErrorCode)[keyof typeof RunFileErrorCode];

/** One thing wrong with a run file. */
export interface RunFileProblem {
  /** `FILE:LINE:COL`, or the flag (`--rounds`) or variable that set the value. */
  where: string;
  /** Dotted key, e.g. `recipe.group_size` (`yaml` for a syntax error). */
  key: string;
  message: string;
}

/** `FILE:LINE:COL: key: message`. */
export function formatProblem(p: RunFileProblem): string {
  return `${p.where}: ${p.key}: ${p.message}`;
}

export class RunFileError extends OwrlError<RunFileErrorCode> {
  override readonly name = 'RunFileError';
  readonly problems: readonly RunFileProblem[];

  constructor(code: RunFileErrorCode, problems: readonly RunFileProblem[], options?: { cause?: unknown }) {
    super(code, problems.map(formatProblem).join('\n'), options);
    this.problems = problems;
  }
}

export function isRunFileError(e: unknown, code?: RunFileErrorCode): e is RunFileError {
  return e instanceof RunFileError && (code === undefined || e.code === code);
}
