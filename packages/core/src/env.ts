// Typed reading of configuration from environment variables, with errors that name the variable.
// The environment is always passed in: only a service's config function (called by the startup
// path with process.env) decides where settings come from, so libraries never read process.env.
import { OwrlError } from './errors.js';
import { Secret } from './secret.js';

/** Environment variables as a config function receives them. */
export type Env = Readonly<Record<string, string | undefined>>;

export const ConfigErrorCode = {
  /** A setting is missing or invalid. */
  Invalid: 'CONFIG_INVALID',
} as const;
export type ConfigErrorCode = (typeof ConfigErrorCode)[keyof typeof ConfigErrorCode];

/** A setting is missing or invalid; `variable` names it and the message gives its value. */
export class ConfigError extends OwrlError<ConfigErrorCode> {
  override readonly name = 'ConfigError';
  readonly variable: string;
  constructor(variable: string, message: string, options?: { cause?: unknown }) {
    super(ConfigErrorCode.Invalid, message, options);
    this.variable = variable;
  }
}

export function isConfigError(e: unknown, code?: ConfigErrorCode): e is ConfigError {
  return e instanceof ConfigError && (code === undefined || e.code === code);
}

export function envString(name: string, def: string, env: Env): string {
  const v = env[name];
  return v === undefined || v === '' ? def : v;
}

export function envNumber(name: string, def: number, env: Env, opts: { min?: number; integer?: boolean } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || (opts.integer && !Number.isInteger(n)) || (opts.min !== undefined && n < opts.min)) {
    const want = `${opts.integer ? 'an integer' : 'a number'}${opts.min !== undefined ? ` >= ${opts.min}` : ''}`;
    throw new ConfigError(name, `${name}=${JSON.stringify(raw)} is not ${want}`);
  }
  return n;
}

export function envInt(name: string, def: number, env: Env, min = 0): number {
  return envNumber(name, def, env, { integer: true, min });
}

export function envBool(name: string, def: boolean, env: Env): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `${name}=${JSON.stringify(raw)} is not a boolean (true/false/1/0)`);
}

export function envList(name: string, def: string[], env: Env): string[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/** One of `allowed` (exact spelling). @throws ConfigError naming the variable and the choices. */
export function envOneOf<T extends string>(name: string, def: T, allowed: readonly T[], env: Env): T {
  const v = envString(name, def, env);
  if (!(allowed as readonly string[]).includes(v)) throw new ConfigError(name, `${name}=${JSON.stringify(v)} must be one of ${allowed.join(', ')}`);
  return v as T;
}

/** A secret setting ('' when unset); its value never reaches a log line or an error message. */
export function envSecret(name: string, env: Env): Secret {
  return new Secret(env[name] ?? '');
}
