// Errors of the console's answers: each code stands for one HTTP status, which the page or the
// JSON answer carries with the message.
import { OwrlError } from '@owrl/core';

export const HttpErrorCode = {
  BadRequest: 'CONSOLE_BAD_REQUEST',
  /** A control call without the right token. */
  Unauthorized: 'CONSOLE_UNAUTHORIZED',
  Forbidden: 'CONSOLE_FORBIDDEN',
  NotFound: 'CONSOLE_NOT_FOUND',
  MethodNotAllowed: 'CONSOLE_METHOD_NOT_ALLOWED',
  /** The call cannot be done in this state (edits disabled, the learner refuses it now). */
  Conflict: 'CONSOLE_CONFLICT',
  BodyTooLarge: 'CONSOLE_BODY_TOO_LARGE',
  /** A control call whose body is not JSON (the guard against cross-site form posts). */
  UnsupportedMediaType: 'CONSOLE_UNSUPPORTED_MEDIA_TYPE',
  Internal: 'CONSOLE_INTERNAL',
  /** The learner answered with a failure the console has no better status for. */
  BadGateway: 'CONSOLE_BAD_GATEWAY',
  /** No run state yet, no NATS for the blacklist, or the learner is unavailable. */
  Unavailable: 'CONSOLE_UNAVAILABLE',
  /** The learner did not answer in time. */
  GatewayTimeout: 'CONSOLE_GATEWAY_TIMEOUT',
} as const;
export type HttpErrorCode = (typeof HttpErrorCode)[keyof typeof HttpErrorCode];

const STATUS: Readonly<Record<HttpErrorCode, number>> = {
  CONSOLE_BAD_REQUEST: 400,
  CONSOLE_UNAUTHORIZED: 401,
  CONSOLE_FORBIDDEN: 403,
  CONSOLE_NOT_FOUND: 404,
  CONSOLE_METHOD_NOT_ALLOWED: 405,
  CONSOLE_CONFLICT: 409,
  CONSOLE_BODY_TOO_LARGE: 413,
  CONSOLE_UNSUPPORTED_MEDIA_TYPE: 415,
  CONSOLE_INTERNAL: 500,
  CONSOLE_BAD_GATEWAY: 502,
  CONSOLE_UNAVAILABLE: 503,
  CONSOLE_GATEWAY_TIMEOUT: 504,
};

export class HttpError extends OwrlError<HttpErrorCode> {
  override readonly name = 'HttpError';
  /** The HTTP status the console answers with. */
  readonly status: number;

  constructor(code: HttpErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = STATUS[code];
  }
}

export function isHttpError(e: unknown, code?: HttpErrorCode): e is HttpError {
  return e instanceof HttpError && (code === undefined || e.code === code);
}
