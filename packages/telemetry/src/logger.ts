// The pino binding of the owrl Logger, for service mains (the startup path of @owrl/service
// creates it; nothing else does). JSON lines, ISO time, secrets redacted. Lines are written
// synchronously to stdout/stderr: they leave in order and none is lost when the process exits
// or crashes (an asynchronous destination reordered the last lines at exit: its flush does not
// wait for a write in flight). flush() is still awaited before exit for other destinations.
import type { Logger } from '@owrl/core';
import { pino } from 'pino';

/** Field names whose values never reach a log line, at the top level and up to three levels down. */
export const REDACTED_FIELDS = ['password', 'pass', 'token', 'secret', 'authorization', 'controlToken', 'nkeySeed', 'creds', 'credentials', 'apiKey'] as const;

/** What a redacted value is written as. */
export const CENSOR = '[redacted]';

const REDACTED = new Set<string>(REDACTED_FIELDS);
/** Levels below the top that are searched (three: `a.b.c.password`). */
const REDACT_DEPTH = 3;

/** A plain object or array (what a log call's fields are made of); not a class instance (a Secret, a Date, a Buffer). */
function plain(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `o` with the value of every field named in REDACTED_FIELDS replaced by CENSOR, at the top level
 * and up to three levels down, and the `cookie` of a top-level `headers`: a copy of what changed,
 * `o` itself when nothing did. An Error's own fields are searched too (pino writes them).
 * One walk of the fields; pino's own path redaction (44 wildcard paths) cost 35-65 µs per line,
 * most of a synthetic actor's cost of a published trajectory's log line.
 */
export function redactSecrets<T extends object>(o: T, depth = 0): T {
  let out: Record<string, unknown> | unknown[] | null = null;
  const src = o as Record<string, unknown>;
  for (const k of Object.keys(src)) {
    const v = src[k];
    let nv = v;
    if (REDACTED.has(k)) nv = CENSOR;
    else if (depth < REDACT_DEPTH && typeof v === 'object' && v !== null) {
      if (v instanceof Error) {
        // Its own fields, which pino writes beside its type, message and stack; redacted in a
        // copy of the same kind (pino names the error by its constructor).
        const fields: Record<string, unknown> = { ...v };
        const r = redactSecrets(fields, depth + 1);
        if (r !== fields) {
          const copy = Object.create(Object.getPrototypeOf(v) as object) as Error;
          for (const own of ['message', 'stack', 'cause'] as const) if (Object.prototype.hasOwnProperty.call(v, own)) Object.defineProperty(copy, own, { value: v[own], writable: true, configurable: true });
          nv = Object.assign(copy, r);
        }
      } else if (plain(v)) {
        nv = depth === 0 && k === 'headers' ? redactHeaders(v as Record<string, unknown>) : redactSecrets(v, depth + 1);
      }
    }
    if (nv !== v) {
      out ??= Array.isArray(o) ? [...(o as unknown[])] : { ...src };
      (out as Record<string, unknown>)[k] = nv;
    }
  }
  return (out ?? o) as T;
}

/** A top-level `headers`: its secrets and its cookie. */
function redactHeaders(h: Record<string, unknown>): Record<string, unknown> {
  const r = redactSecrets(h, 1);
  if (!('cookie' in r)) return r;
  return { ...r, cookie: CENSOR };
}

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
      base: redactSecrets({ service, pid: process.pid, ...opts.bindings }),
      // Each call's fields; a child's bindings below.
      formatters: { log: (o) => redactSecrets(o) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    dest as unknown as pino.DestinationStream,
  );
  // A child's bindings are written as they are (pino's formatters do not see them): redacted here.
  // Every child inherits this child() from the root.
  const pinoChild = (Object.getPrototypeOf(p) as pino.Logger).child as unknown as (this: pino.Logger, b: pino.Bindings, o?: pino.ChildLoggerOptions) => pino.Logger;
  Object.defineProperty(p, 'child', {
    value: function (this: pino.Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions): pino.Logger {
      return pinoChild.call(this, redactSecrets(bindings), options);
    },
  });
  const logger = p as unknown as ServiceLogger;
  // pino's own flush takes a callback; the owrl face is a promise that never rejects.
  const flushCb = p.flush.bind(p);
  Object.defineProperty(logger, 'flush', {
    value: () => new Promise<void>((resolve) => flushCb(() => resolve())),
  });
  return logger;
}
