// The logger the bus accepts: structurally the pino-like Logger of @owrl/telemetry (fields first,
// then a message), injected through options; silent when none is given.

export interface BusLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): BusLogger;
}

export const silentBusLogger: BusLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentBusLogger,
};

/** Error fields for a log record (no stack unless asked; logs are read by people). */
export function errFields(e: unknown): { err: string; code?: string } {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return code === undefined ? { err: `${e.name}: ${e.message}` } : { err: `${e.name}: ${e.message}`, code: String(code) };
  }
  return { err: String(e) };
}
