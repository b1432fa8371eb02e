// Logger interface injected into every constructor, and its pino binding (only mains call
// createLogger). Secrets are redacted; fields, not sentences.
import type { Logger } from '@owrl/core';
import { pino } from 'pino';

export { silentLogger, type Logger } from '@owrl/core';

const REDACT = ['token', 'password', 'secret', 'authorization', 'apiKey', '*.token', '*.password', '*.secret', '*.authorization', '*.apiKey', 'headers.authorization'];

/**
 * JSON logger for a service main. Level from OWRL_LOG_LEVEL (default info). Writes to stdout,
 * or to stderr when `toStderr` (CLIs that print results on stdout).
 */
export function createLogger(service: string, opts: { level?: string; toStderr?: boolean; bindings?: Record<string, unknown> } = {}): Logger {
  const level = opts.level ?? process.env['OWRL_LOG_LEVEL'] ?? 'info';
  const dest = pino.destination({ fd: opts.toStderr ? 2 : 1, sync: false });
  return pino({ level, base: { service, pid: process.pid, ...opts.bindings }, redact: { paths: REDACT, censor: '[redacted]' }, timestamp: pino.stdTimeFunctions.isoTime }, dest) as unknown as Logger;
}
