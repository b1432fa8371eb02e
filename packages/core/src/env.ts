// Typed reading of configuration from environment variables, with errors that name the variable.

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'CONFIG_INVALID';
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(message);
    this.variable = variable;
  }
}

export function envString(name: string, def: string, env: Env = process.env): string {
  const v = env[name];
  return v === undefined || v === '' ? def : v;
}

export function envNumber(name: string, def: number, env: Env = process.env, opts: { min?: number; integer?: boolean } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || (opts.integer && !Number.isInteger(n)) || (opts.min !== undefined && n < opts.min)) {
    const want = `${opts.integer ? 'an integer' : 'a number'}${opts.min !== undefined ? ` >= ${opts.min}` : ''}`;
    throw new ConfigError(name, `${name}=${JSON.stringify(raw)} is not ${want}`);
  }
  return n;
}

export function envInt(name: string, def: number, env: Env = process.env, min = 0): number {
  return envNumber(name, def, env, { integer: true, min });
}

export function envBool(name: string, def: boolean, env: Env = process.env): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `${name}=${JSON.stringify(raw)} is not a boolean (true/false/1/0)`);
}

export function envList(name: string, def: string[], env: Env = process.env): string[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}
