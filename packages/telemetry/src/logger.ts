// Logger interface injected into every constructor, and its pino binding (only mains call
// createLogger). Secrets are redacted; fields, not sentences.
import { pino } from 'pino';

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

const REDACT = ['token', 'password', 'secret', 'authorization', '*.token', '*.password', '*.secret', '*.authorization', 'headers.authorization'];

/**
 * JSON logger for a service main. Level from OWRL_LOG_LEVEL (default info). Writes to stdout,
 * or to stderr when `toStderr` (CLIs that print results on stdout).
 */
export function createLogger(service: string, opts: { level?: string; toStderr?: boolean; bindings?: Record<string, unknown> } = {}): Logger {
  const level = opts.level ?? process.env['OWRL_LOG_LEVEL'] ?? 'info';
  const dest = pino.destination({ fd: opts.toStderr ? 2 : 1, sync: false });
  return pino({ level, base: { service, pid: process.pid, ...opts.bindings }, redact: { paths: REDACT, censor: '[redacted]' }, timestamp: pino.stdTimeFunctions.isoTime }, dest) as unknown as Logger;
}
