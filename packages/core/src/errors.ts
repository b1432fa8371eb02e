// Base error of owrl: a stable `code`, a `name`, and `cause` chaining. Packages subclass it.

export class OwrlError extends Error {
  override name = 'OwrlError';
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
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
