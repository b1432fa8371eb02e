// The pino binding of the owrl Logger, for service mains (the startup path of @owrl/service
// creates it; nothing else does). JSON lines, ISO time, secrets redacted. Lines are written
// synchronously to stdout/stderr: they leave in order and none is lost when the process exits
// or crashes (an asynchronous destination reordered the last lines at exit: its flush does not
// wait for a write in flight). flush() is still awaited before exit for other destinations.
import type { Logger } from '@owrl/core';
import { pino } from 'pino';

export { silentLogger, type Logger } from '@owrl/core';

/** Field names whose values never reach a log line, at the top level and up to three levels down. */
export const REDACTED_FIELDS = ['password', 'pass', 'token', 'secret', 'authorization', 'controlToken', 'nkeySeed', 'creds', 'credentials', 'apiKey'] as const;

/** pino redaction paths for REDACTED_FIELDS (plus request headers). */
export const REDACT_PATHS: readonly string[] = [...REDACTED_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`, `*.*.*.${f}`]), 'headers.authorization', 'headers.cookie'];

/** Levels OWRL_LOG_LEVEL may name. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A logger that can be flushed: what a main holds (inner classes take the plain Logger). */
export interface ServiceLogger extends Logger {
  /** Resolves when every line written so far has reached the destination (or the destination failed). */
  flush(): Promise<void>;
}

export interface CreateLoggerOptions {
  /** Default info. */
  level?: LogLevel;
  /** Write to stderr instead of stdout (CLIs that print results on stdout). */
  toStderr?: boolean;
  /** Fields on every line besides `service` and `pid`. */
  bindings?: Record<string, unknown>;
  /** Write here instead of fd 1/2 (tests). */
  destination?: NodeJS.WritableStream;
}

/**
 * `line` (one JSON object and a newline) with every key once: pino writes a key again when a child
 * logger or a call repeats a bound field (e.g. `run` bound by the service and again by a round's
 * child). The last value wins, as it does for a JSON reader; a line that does not parse is kept.
 */
export function uniqueKeys(line: string): string {
  try {
    return `${JSON.stringify(JSON.parse(line))}\n`;
  } catch {
    return line;
  }
}

interface Sink {
  write(s: string): unknown;
  flush?(cb?: (err?: Error) => void): void;
  flushSync?(): void;
}

/** `dest` with every line passed through uniqueKeys. */
function dedupingSink(dest: Sink): Sink {
  return {
    write: (s: string) => dest.write(uniqueKeys(s)),
    flush: (cb?: (err?: Error) => void) => (dest.flush ? dest.flush(cb) : cb?.()),
    ...(dest.flushSync ? { flushSync: () => dest.flushSync?.() } : {}),
  };
}

/** JSON logger of a service: `service`, `pid`, ISO `time`, secrets redacted, each key once per line; synchronous writes to fd 1 (or 2). */
export function createLogger(service: string, opts: CreateLoggerOptions = {}): ServiceLogger {
  const dest = dedupingSink((opts.destination as unknown as Sink | undefined) ?? pino.destination({ fd: opts.toStderr ? 2 : 1, sync: true }));
  const p = pino(
    {
      level: opts.level ?? 'info',
      base: { service, pid: process.pid, ...opts.bindings },
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    dest as unknown as pino.DestinationStream,
  );
  const logger = p as unknown as ServiceLogger;
  // pino's own flush takes a callback; the owrl face is a promise that never rejects.
  const flushCb = p.flush.bind(p);
  Object.defineProperty(logger, 'flush', {
    value: () => new Promise<void>((resolve) => flushCb(() => resolve())),
  });
  return logger;
}
