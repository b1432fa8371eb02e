// Errors of the command line: a UsageError (bad flags or arguments) exits with status 2, any other
// error with 1; both print `owrl: <message>`.
import { OwrlError } from '@owrl/core';

export const UsageErrorCode = {
  /** Bad flags or arguments; the message names the flag or value. */
  BadUsage: 'CLI_BAD_USAGE',
} as const;
export type UsageErrorCode = (typeof UsageErrorCode)[keyof typeof UsageErrorCode];

export class UsageError extends OwrlError<UsageErrorCode> {
  override readonly name: string = 'UsageError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(UsageErrorCode.BadUsage, message, options);
  }
}

export function isUsageError(e: unknown, code?: UsageErrorCode): e is UsageError {
  return e instanceof UsageError && (code === undefined || e.code === code);
}
