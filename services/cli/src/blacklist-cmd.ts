// `owrl blacklist list|add|remove`: reads and edits KV owrl_blacklist (hosts the scheduler and the
// actors skip) on the NATS server at --nats / NATS_URL. Hosts are keyed as in task URLs: host or
// host:port (a whole URL is accepted and reduced to that).
import { parseArgs } from 'node:util';
import { Blacklist, connectBus, ensureTopology, isEntryBlocking, isNotFound, type Bus } from '@owrl/bus';
import { natsSettings } from './nats-option.js';
import { UsageError } from './usage.js';

export const BLACKLIST_HELP = `usage:
  owrl blacklist list [--json]
      Print the blacklisted hosts: host, reason, failures, until, remaining (expired entries say so).
  owrl blacklist add HOST --reason R [--ttl 30m] [--failures N]
      Block HOST (host or host:port as in task URLs, or a URL) for --ttl (ms, s, m, h or d; a bare
      number is seconds; default 30m). The learner stops scheduling it and actors skip its tasks.
  owrl blacklist remove HOST
      Unblock HOST (exit status 1 when it was not listed).
  Every subcommand takes --nats URL (default: NATS_URL, else nats://127.0.0.1:4222).
`;

const DEFAULT_TTL_MS = 30 * 60_000;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses a duration such as `90s`, `30m`, `1.5h`, `2d` or `45` (seconds). @throws UsageError. */
export function parseTtl(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  const ms = m ? Number(m[1]) * (UNIT_MS[m[2] ?? 's'] ?? 1000) : NaN;
  if (!Number.isFinite(ms) || ms < 1) throw new UsageError(`--ttl ${JSON.stringify(raw)} is not a positive duration: use e.g. 90s, 30m, 2h or 1d`);
  return Math.round(ms);
}

/** The blacklist key of HOST: host or host:port, lower-cased; a URL gives its host. @throws UsageError. */
export function parseHost(raw: string | undefined): string {
  const text = (raw ?? '').trim();
  if (text === '') throw new UsageError('HOST is missing: give a host, host:port or URL');
  let u: URL | null = null;
  try {
    u = new URL(text.includes('://') ? text : `http://${text}`);
  } catch {
    u = null;
  }
  const bare = !text.includes('://');
  if (!u || u.host === '' || (bare && (u.pathname !== '/' || u.search !== '' || u.hash !== '' || u.username !== '' || /[/?#@]/.test(text)))) {
    throw new UsageError(`HOST ${JSON.stringify(text)} is not a host, host:port or URL`);
  }
  return u.host;
}

/** `1h 05m`, `4m 09s`, `12s`; `expired` when not positive. */
export function formatRemaining(ms: number): string {
  if (ms <= 0) return 'expired';
  const s = Math.ceil(ms / 1000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  if (d > 0) return `${d}d ${two(h)}h`;
  if (h > 0) return `${h}h ${two(m)}m`;
  if (m > 0) return `${m}m ${two(sec)}s`;
  return `${sec}s`;
}

function isoSeconds(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : String(ms);
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

/** Opens the bucket; null when the server has no owrl topology yet (nothing was ever listed). */
async function openIfExists(bus: Bus): Promise<Blacklist | null> {
  try {
    return await Blacklist.open(bus);
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
}

async function list(bus: Bus, json: boolean, out: (s: string) => void): Promise<number> {
  const bl = await openIfExists(bus);
  const now = Date.now();
  const entries = bl ? await bl.list() : [];
  if (json) {
    const rows = entries.map((e) => ({ host: e.host, reason: e.reason, failures: e.failures, untilMs: e.untilMs, until: isoSeconds(e.untilMs), remainingMs: Math.max(0, e.untilMs - now), blocking: isEntryBlocking(e, now) }));
    out(JSON.stringify(rows, null, 2));
    return 0;
  }
  if (entries.length === 0) {
    out('no hosts are blacklisted');
    return 0;
  }
  out(table([['HOST', 'REASON', 'FAILURES', 'UNTIL', 'REMAINING'], ...entries.map((e) => [e.host, e.reason, String(e.failures), isoSeconds(e.untilMs), formatRemaining(e.untilMs - now)])]));
  return 0;
}

async function add(bus: Bus, host: string, reason: string, ttlMs: number, failures: number, out: (s: string) => void, warn: (s: string) => void): Promise<number> {
  let bl = await openIfExists(bus);
  if (!bl) {
    await ensureTopology(bus);
    bl = await Blacklist.open(bus);
  }
  const untilMs = Date.now() + ttlMs;
  await bl.add(host, { reason, failures, untilMs });
  out(`blacklisted ${host} until ${isoSeconds(untilMs)} (${reason})`);
  const bucketTtl = await bl.bucketTtlMs();
  if (bucketTtl > 0 && ttlMs > bucketTtl) {
    warn(`note: the owrl_blacklist bucket drops entries ${formatRemaining(bucketTtl)} after they are written, so this one goes before its --ttl`);
  }
  return 0;
}

async function remove(bus: Bus, host: string, out: (s: string) => void): Promise<number> {
  const bl = await openIfExists(bus);
  if (!bl || !(await bl.remove(host))) throw new Error(`${host} is not blacklisted`);
  out(`removed ${host} from the blacklist`);
  return 0;
}

/**
 * Runs `owrl blacklist <args>`; returns the exit status.
 * @throws UsageError for bad arguments (exit 2); other errors (NATS unreachable, host not listed) exit 1.
 */
export async function runBlacklistCommand(
  args: string[],
  env: Record<string, string | undefined> = process.env,
  out: (s: string) => void = (s) => process.stdout.write(s + '\n'),
  warn: (s: string) => void = (s) => process.stderr.write(s + '\n'),
): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    out(BLACKLIST_HELP.trimEnd());
    return 0;
  }
  if (sub !== 'list' && sub !== 'add' && sub !== 'remove') throw new UsageError(`unknown blacklist subcommand ${JSON.stringify(sub)}\n\n${BLACKLIST_HELP}`);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { nats: { type: 'string' }, json: { type: 'boolean' }, reason: { type: 'string' }, ttl: { type: 'string' }, failures: { type: 'string' } },
    });
  } catch (e) {
    throw new UsageError(`blacklist ${sub}: ${(e as Error).message}`);
  }
  const { values, positionals } = parsed;
  const allowed = { list: ['nats', 'json'], add: ['nats', 'reason', 'ttl', 'failures'], remove: ['nats'] }[sub];
  const extra = Object.keys(values).find((k) => !allowed.includes(k));
  if (extra) throw new UsageError(`blacklist ${sub} takes no --${extra}`);
  const wantPositionals = sub === 'list' ? 0 : 1;
  if (positionals.length > wantPositionals) throw new UsageError(`blacklist ${sub}: unexpected argument ${JSON.stringify(positionals[wantPositionals])}`);
  const host = sub === 'list' ? '' : parseHost(positionals[0]);
  let reason = '';
  let ttlMs = DEFAULT_TTL_MS;
  let failures = 0;
  if (sub === 'add') {
    reason = (values.reason ?? '').trim();
    if (reason === '') throw new UsageError('blacklist add: --reason R is required (e.g. --reason bot_wall)');
    if (values.ttl !== undefined) ttlMs = parseTtl(values.ttl);
    if (values.failures !== undefined) {
      failures = Number(values.failures);
      if (!Number.isInteger(failures) || failures < 0) throw new UsageError(`--failures must be an integer >= 0, got ${JSON.stringify(values.failures)}`);
    }
  }
  const nats = natsSettings(env, values.nats);
  const bus = await connectBus({ servers: nats.servers, auth: nats.auth, name: 'owrl-cli-blacklist', timeoutMs: 5000 });
  try {
    if (sub === 'list') return await list(bus, values.json === true, out);
    if (sub === 'add') return await add(bus, host, reason, ttlMs, failures, out, warn);
    return await remove(bus, host, out);
  } finally {
    await bus.close();
  }
}
