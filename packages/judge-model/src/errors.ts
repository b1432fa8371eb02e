// Errors of the judge model (ONNX or API backend): a bad model folder, an unusable device, prompts
// that cannot fit, inference failures, timeouts, crashed workers, and for the API backend
// unreachable servers, refused requests and replies that hold no usable verdict. Codes are stable.
import { OwrlError } from '@owrl/core';

export const JudgeModelErrorCode = {
  InvalidModel: 'JUDGE_MODEL_INVALID_MODEL',
  InvalidArgument: 'JUDGE_MODEL_INVALID_ARGUMENT',
  DeviceUnavailable: 'JUDGE_MODEL_DEVICE_UNAVAILABLE',
  PromptTooLong: 'JUDGE_MODEL_PROMPT_TOO_LONG',
  BadImage: 'JUDGE_MODEL_BAD_IMAGE',
  InferenceFailed: 'JUDGE_MODEL_INFERENCE_FAILED',
  Timeout: 'JUDGE_MODEL_TIMEOUT',
  Aborted: 'JUDGE_MODEL_ABORTED',
  Crashed: 'JUDGE_MODEL_CRASHED',
  Closed: 'JUDGE_MODEL_CLOSED',
  /** API backend: the server answered, but the reply holds no yes/no verdict (or is not JSON). */
  BadReply: 'JUDGE_MODEL_BAD_REPLY',
  /** API backend: the server refused the request (HTTP 4xx other than 408/429). */
  ApiRefused: 'JUDGE_MODEL_API_REFUSED',
  /** API backend: no answer after the retries (connection failures, HTTP 5xx, 408, 429). */
  Unreachable: 'JUDGE_MODEL_UNREACHABLE',
} as const;
export type JudgeModelErrorCode = (typeof JudgeModelErrorCode)[keyof typeof JudgeModelErrorCode];

export class JudgeModelError extends OwrlError<JudgeModelErrorCode> {
  override readonly name = 'JudgeModelError';
}

export function isJudgeModelError(e: unknown, code?: JudgeModelErrorCode): e is JudgeModelError {
  return e instanceof JudgeModelError && (code === undefined || e.code === code);
}

const CODES: ReadonlySet<string> = new Set(Object.values(JudgeModelErrorCode));

/** Plain form of an error that crosses the worker boundary. */
export interface WireError {
  code: string;
  message: string;
}

export function toWireError(e: unknown): WireError {
  if (e instanceof JudgeModelError) return { code: e.code, message: e.message };
  if (e instanceof Error) return { code: JudgeModelErrorCode.InferenceFailed, message: `${e.name}: ${e.message}` };
  return { code: JudgeModelErrorCode.InferenceFailed, message: String(e) };
}

export function fromWireError(w: WireError): JudgeModelError {
  const code = CODES.has(w.code) ? (w.code as JudgeModelErrorCode) : JudgeModelErrorCode.InferenceFailed;
  return new JudgeModelError(code, w.message);
}
