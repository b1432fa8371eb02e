// Error fields for the bus's log records (the bus logs through the injected Logger of @owrl/core,
// silent when none is given).

/** Error fields for a log record (no stack unless asked; logs are read by people). */
export function errFields(e: unknown): { err: string; code?: string } {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return code === undefined ? { err: `${e.name}: ${e.message}` } : { err: `${e.name}: ${e.message}`, code: String(code) };
  }
  return { err: String(e) };
}
