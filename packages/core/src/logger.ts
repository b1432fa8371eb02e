// The logger interface every owrl constructor takes (fields first, then a message; pino fits it).
// Only service mains bind a real logger (@owrl/telemetry createLogger); libraries default to silence.

export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** A logger that drops everything (library default when none is injected). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
