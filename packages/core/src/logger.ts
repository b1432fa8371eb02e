// The logger interface every owrl constructor takes (fields first, then a message; pino fits it).
// Only service mains bind a real logger (@owrl/telemetry createLogger); libraries default to silence.

export type LogLevelName = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
  /** Whether a line at `level` is written (pino has it); a logger without it writes every level. */
  isLevelEnabled?(level: LogLevelName): boolean;
}

/** A logger that drops everything (library default when none is injected). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
  isLevelEnabled: () => false,
};

/**
 * A child of `parent` with `bindings`, made when a line is first written through it (a line whose
 * level is off makes nothing): for a logger per message (a trajectory's id bound), which pino
 * otherwise builds, its bindings serialised and redacted, for every message whether it logs or not.
 */
export function lazyChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  let made: Logger | null = null;
  const child = (): Logger => (made ??= parent.child(bindings));
  const at =
    (level: LogLevelName) =>
    (obj: object, msg?: string): void => {
      if (made === null && parent.isLevelEnabled?.(level) === false) return;
      if (msg === undefined) child()[level](obj);
      else child()[level](obj, msg);
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => (made !== null ? lazyChild(made, more) : lazyChild(parent, { ...bindings, ...more })),
    isLevelEnabled: (level) => parent.isLevelEnabled?.(level) ?? true,
  };
}
