// Fault rules of the sites server: their JSON shape, strict validation with messages that name the
// field (`fault.ms`, `match.path`...), and the per-request `owrl_fault=<kind>[:<arg>]` parameter.
import { SitesError, SitesErrorCode } from '../errors.js';

export const FAULT_KINDS = [
  'latency',
  'status',
  'reset',
  'hang',
  'redirect_loop',
  'dom_mutation',
  'slow_render',
  'bot_wall',
  'captcha',
  'down',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FAULT_STATUS_CODES = [500, 502, 503, 504, 403, 429] as const;
export const BOT_WALL_STATUS_CODES = [403, 503] as const;
export const CAPTCHA_PROVIDERS = ['recaptcha', 'hcaptcha'] as const;
export const REDIRECT_MODES = ['pair', 'self'] as const;

/** Longest delay any fault takes (ms): 10 minutes. */
export const MAX_FAULT_MS = 600_000;

export type FaultSpec =
  | { kind: 'latency'; ms: number; jitter_ms: number }
  | { kind: 'status'; code: (typeof FAULT_STATUS_CODES)[number]; retry_after?: number }
  | { kind: 'reset' }
  | { kind: 'hang' }
  | { kind: 'redirect_loop'; mode: (typeof REDIRECT_MODES)[number] }
  | { kind: 'dom_mutation'; after_ms: number }
  | { kind: 'slow_render'; ms: number }
  | { kind: 'bot_wall'; status: (typeof BOT_WALL_STATUS_CODES)[number] }
  | { kind: 'captcha'; provider: (typeof CAPTCHA_PROVIDERS)[number] }
  | { kind: 'down' };

export interface FaultMatch {
  /** Exact hostname of the Host header (lower case, no port). */
  host?: string;
  /** Bundled site name: the path is `/<site>` or under `/<site>/`. */
  site?: string;
  /** A path prefix (starts with `/`), or `~<regex>` tested against path + query. */
  path?: string;
  /** The `owrl_session` of the request (query parameter, else cookie). */
  session?: string;
}

export interface FaultRule {
  match: FaultMatch;
  fault: FaultSpec;
  /** Chance a matching request (past after_requests) gets the fault; default 1. */
  probability: number;
  /** Matching requests passed through before the rule starts firing; default 0. */
  after_requests: number;
  /** The rule expires after firing this many times; absent = never. */
  count?: number;
  /** Seed of the rule's random draws (probability, jitter); default: derived from the server seed and rule id. */
  seed?: number;
}

/** A rule that does not validate; `field` is its JSON path (`fault.code`, `match.path`...). */
export class FaultRuleError extends SitesError {
  override readonly name = 'FaultRuleError';
  readonly field: string;

  constructor(field: string, message: string) {
    super(SitesErrorCode.BadRequest, `${field}: ${message}`);
    this.field = field;
  }
}

export function isFaultRuleError(e: unknown): e is FaultRuleError {
  return e instanceof FaultRuleError;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function onlyKeys(o: Obj, field: string, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) {
      throw new FaultRuleError(at(field, k), `unknown field (allowed${field === '' ? '' : ` in ${field}`}: ${allowed.join(', ')})`);
    }
  }
}

/** JSON path of `key` inside `field` ('' = top level of the rule). */
function at(field: string, key: string): string {
  return field === '' ? key : `${field}.${key}`;
}

function intIn(o: Obj, key: string, field: string, min: number, max: number, def?: number): number {
  const v = o[key];
  if (v === undefined) {
    if (def === undefined) throw new FaultRuleError(at(field, key), 'is required');
    return def;
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new FaultRuleError(at(field, key), `must be an integer from ${min} to ${max}, got ${show(v)}`);
  }
  return v;
}

function oneOf<T extends string | number>(o: Obj, key: string, field: string, allowed: readonly T[], def: T): T {
  const v = o[key];
  if (v === undefined) return def;
  if (!allowed.includes(v as T)) throw new FaultRuleError(at(field, key), `must be one of ${allowed.join(', ')}, got ${show(v)}`);
  return v as T;
}

/** Validates the `fault` object of a rule. @throws FaultRuleError naming the field. */
export function parseFaultSpec(v: unknown, field = 'fault'): FaultSpec {
  if (!isObj(v)) throw new FaultRuleError(field, `must be an object with a kind (${FAULT_KINDS.join(', ')}), got ${show(v)}`);
  const kind = v['kind'];
  if (typeof kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw new FaultRuleError(`${field}.kind`, `must be one of ${FAULT_KINDS.join(', ')}, got ${show(kind)}`);
  }
  switch (kind as FaultKind) {
    case 'latency':
      onlyKeys(v, field, ['kind', 'ms', 'jitter_ms']);
      return { kind: 'latency', ms: intIn(v, 'ms', field, 0, MAX_FAULT_MS), jitter_ms: intIn(v, 'jitter_ms', field, 0, MAX_FAULT_MS, 0) };
    case 'status': {
      onlyKeys(v, field, ['kind', 'code', 'retry_after']);
      if (v['code'] === undefined) throw new FaultRuleError(`${field}.code`, `is required (one of ${FAULT_STATUS_CODES.join(', ')})`);
      const code = oneOf(v, 'code', field, FAULT_STATUS_CODES, 503);
      if (v['retry_after'] === undefined) return { kind: 'status', code };
      return { kind: 'status', code, retry_after: intIn(v, 'retry_after', field, 0, 86_400) };
    }
    case 'reset':
    case 'hang':
    case 'down':
      onlyKeys(v, field, ['kind']);
      return { kind: kind as 'reset' | 'hang' | 'down' };
    case 'redirect_loop':
      onlyKeys(v, field, ['kind', 'mode']);
      return { kind: 'redirect_loop', mode: oneOf(v, 'mode', field, REDIRECT_MODES, 'pair') };
    case 'dom_mutation':
      onlyKeys(v, field, ['kind', 'after_ms']);
      return { kind: 'dom_mutation', after_ms: intIn(v, 'after_ms', field, 0, MAX_FAULT_MS, 1000) };
    case 'slow_render':
      onlyKeys(v, field, ['kind', 'ms']);
      return { kind: 'slow_render', ms: intIn(v, 'ms', field, 0, MAX_FAULT_MS, 3000) };
    case 'bot_wall':
      onlyKeys(v, field, ['kind', 'status']);
      return { kind: 'bot_wall', status: oneOf(v, 'status', field, BOT_WALL_STATUS_CODES, 503) };
    case 'captcha':
      onlyKeys(v, field, ['kind', 'provider']);
      return { kind: 'captcha', provider: oneOf(v, 'provider', field, CAPTCHA_PROVIDERS, 'recaptcha') };
  }
}

const HOSTNAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/;

function parseMatch(v: unknown, siteNames: readonly string[]): FaultMatch {
  if (v === undefined) return {};
  if (!isObj(v)) throw new FaultRuleError('match', `must be an object, got ${show(v)}`);
  onlyKeys(v, 'match', ['host', 'site', 'path', 'session']);
  const out: FaultMatch = {};
  const str = (key: string): string | undefined => {
    const s = v[key];
    if (s === undefined) return undefined;
    if (typeof s !== 'string' || s === '') throw new FaultRuleError(`match.${key}`, `must be a non-empty string, got ${show(s)}`);
    return s;
  };
  const host = str('host');
  if (host !== undefined) {
    const h = host.toLowerCase();
    if (!HOSTNAME.test(h)) throw new FaultRuleError('match.host', `must be a hostname without port or scheme (e.g. "localhost", "127.0.0.2"), got ${show(host)}`);
    out.host = h;
  }
  const site = str('site');
  if (site !== undefined) {
    if (!siteNames.includes(site)) throw new FaultRuleError('match.site', `no site ${show(site)} here (sites: ${siteNames.join(', ')})`);
    out.site = site;
  }
  const path = str('path');
  if (path !== undefined) {
    if (path.startsWith('~')) {
      try {
        new RegExp(path.slice(1));
      } catch (e) {
        throw new FaultRuleError('match.path', `regex ${show(path.slice(1))} does not compile: ${(e as Error).message}`);
      }
    } else if (!path.startsWith('/')) {
      throw new FaultRuleError('match.path', `must be a path prefix starting with "/" or a regex starting with "~", got ${show(path)}`);
    }
    out.path = path;
  }
  const session = str('session');
  if (session !== undefined) out.session = session;
  return out;
}

/**
 * Validates a rule as posted to `/__owrl/faults` (or listed in a startup file).
 * @throws FaultRuleError naming the first bad field.
 */
export function parseFaultRule(v: unknown, siteNames: readonly string[]): FaultRule {
  if (!isObj(v)) throw new FaultRuleError('rule', `must be a JSON object with match and fault, got ${show(v)}`);
  onlyKeys(v, '', ['match', 'fault', 'probability', 'after_requests', 'count', 'seed']);
  if (v['fault'] === undefined) throw new FaultRuleError('fault', 'is required');
  const rule: FaultRule = {
    match: parseMatch(v['match'], siteNames),
    fault: parseFaultSpec(v['fault']),
    probability: 1,
    after_requests: intIn(v, 'after_requests', '', 0, Number.MAX_SAFE_INTEGER, 0),
  };
  const p = v['probability'];
  if (p !== undefined) {
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) throw new FaultRuleError('probability', `must be a number from 0 to 1, got ${show(p)}`);
    rule.probability = p;
  }
  if (v['count'] !== undefined) rule.count = intIn(v, 'count', '', 1, Number.MAX_SAFE_INTEGER);
  if (v['seed'] !== undefined) rule.seed = intIn(v, 'seed', '', -0x80000000, 0xffffffff);
  return rule;
}

/** Query parameter that applies one fault to the request that carries it. */
export const FAULT_PARAM = 'owrl_fault';

function paramError(value: string, message: string): FaultRuleError {
  return new FaultRuleError(FAULT_PARAM, `${show(value)} ${message}`);
}

/**
 * Parses `owrl_fault=<kind>[:<arg>]`: `latency:<ms>`, `status:<code>`, `redirect_loop:pair|self`,
 * `dom_mutation:<after_ms>`, `slow_render:<ms>`, `bot_wall:403|503`, `captcha:recaptcha|hcaptcha`;
 * `reset`, `hang` and `down` take no argument. Without an argument the kind's defaults apply
 * (latency: 1000 ms, status: 503).
 * @throws FaultRuleError (field `owrl_fault`) for an unknown kind or a bad argument.
 */
export function parseFaultParam(value: string): FaultSpec {
  const colon = value.indexOf(':');
  const kind = colon < 0 ? value : value.slice(0, colon);
  const arg = colon < 0 ? undefined : value.slice(colon + 1);
  if (!(FAULT_KINDS as readonly string[]).includes(kind)) throw paramError(value, `has an unknown kind (kinds: ${FAULT_KINDS.join(', ')})`);
  const num = (): number | undefined => {
    if (arg === undefined) return undefined;
    if (!/^\d{1,9}$/.test(arg)) throw paramError(value, `needs a whole number after ":", got ${show(arg)}`);
    return Number(arg);
  };
  const spec: Obj = { kind };
  switch (kind as FaultKind) {
    case 'latency':
      spec['ms'] = num() ?? 1000;
      break;
    case 'status':
      spec['code'] = num() ?? 503;
      break;
    case 'dom_mutation':
      spec['after_ms'] = num();
      break;
    case 'slow_render':
      spec['ms'] = num();
      break;
    case 'bot_wall':
      spec['status'] = num();
      break;
    case 'redirect_loop':
      spec['mode'] = arg;
      break;
    case 'captcha':
      spec['provider'] = arg;
      break;
    case 'reset':
    case 'hang':
    case 'down':
      if (arg !== undefined) throw paramError(value, `takes no argument (use "${kind}")`);
      break;
  }
  try {
    return parseFaultSpec(spec, FAULT_PARAM);
  } catch (e) {
    if (e instanceof FaultRuleError) throw paramError(value, `is not a usable fault: ${e.message}`);
    throw e;
  }
}
