// Base error of owrl: a stable `code`, a `name`, and `cause` chaining. Each package subclasses it
// with its own constant code map (`class BusError extends OwrlError<BusErrorCode>`) and a
// predicate (`isBusError(e, code?)`), so callers branch on a code rather than on a message.

export class OwrlError<Code extends string = string> extends Error {
  override name = 'OwrlError';
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Serialisable form of any thrown value, for diagnostics records that cross processes. */
export function describeError(e: unknown): { name: string; message: string; stack: string; code: string } {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return { name: e.name, message: e.message, stack: e.stack ?? '', code: typeof code === 'string' ? code : '' };
  }
  return { name: 'NonError', message: String(e), stack: '', code: '' };
}
