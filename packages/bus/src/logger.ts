// The bus logs through the injected owrl Logger (silent when none is given), plus error fields.

export { silentLogger, type Logger } from '@owrl/core';

/** Error fields for a log record (no stack unless asked; logs are read by people). */
export function errFields(e: unknown): { err: string; code?: string } {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return code === undefined ? { err: `${e.name}: ${e.message}` } : { err: `${e.name}: ${e.message}`, code: String(code) };
  }
  return { err: String(e) };
}
