// Errors of the sites service: bad server options and bad requests to its API.
import { OwrlError } from '@owrl/core';

export const SitesErrorCode = {
  BadOption: 'SITES_BAD_OPTION',
  BadRequest: 'SITES_BAD_REQUEST',
} as const;
export type SitesErrorCode = (typeof SitesErrorCode)[keyof typeof SitesErrorCode];

export class SitesError extends OwrlError<SitesErrorCode> {
  // string, not the literal: FaultRuleError names itself
  override readonly name: string = 'SitesError';
  /** HTTP status to answer with, for request errors. */
  readonly status: number;

  constructor(code: SitesErrorCode, message: string, options: { cause?: unknown; status?: number } = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status ?? 400;
  }
}

export function isSitesError(e: unknown, code?: SitesErrorCode): e is SitesError {
  return e instanceof SitesError && (code === undefined || e.code === code);
}
