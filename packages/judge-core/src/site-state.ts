// SiteStateCheck verifier: asks the bundled site's own API whether the episode's session reached
// the expected state. Any failure to get a clear answer (network, timeout, 5xx, malformed body) is
// `unavailable`, never a failed check: an outage must not turn into reward 0.
import type { SiteStateCheck } from '@owrl/proto';
import { ExcludedReason } from './outcome.js';
import type { CheckResult } from './check-result.js';

/** The subset of the global `fetch` the check uses (injectable for tests and proxies). */
export type FetchLike = (url: string, init: { signal: AbortSignal; headers: Record<string, string>; redirect?: 'manual' }) => Promise<Response>;

export interface SiteStateOptions {
  /** The rollout's session id (isolates server-side state of bundled sites). */
  sessionId: string;
  /** Base URL against which a relative endpoint is resolved (the task's start URL). */
  baseUrl?: string;
  /** Deadline for the whole request, body included, in milliseconds. */
  timeoutMs: number;
  signal?: AbortSignal;
  fetch?: FetchLike;
  /**
   * Hosts (`host:port` or a bare host name) the check may be fetched from (OWRL_VERIFY_HOSTS).
   * When undefined, only the host of `baseUrl` (the task's own site). Anything else is refused
   * unfetched: a task must not make the judge call into the cluster (SSRF).
   */
  allowHosts?: readonly string[];
}

/** Whether the judge may fetch `u` for a site-state check (see SiteStateOptions.allowHosts). */
export function verifyHostAllowed(u: URL, allowHosts: readonly string[] | undefined, baseUrl: string | undefined): boolean {
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const host = u.hostname.toLowerCase();
  if (allowHosts !== undefined) return allowHosts.some((h) => h.toLowerCase() === `${host}:${port}` || h.toLowerCase() === host);
  if (baseUrl === undefined || baseUrl === '') return false;
  try {
    const b = new URL(baseUrl);
    return b.hostname.toLowerCase() === host && (b.port || (b.protocol === 'https:' ? '443' : '80')) === port;
  } catch {
    return false;
  }
}

const MAX_BODY_CHARS = 64 * 1024;

/**
 * URL of the check: `${endpoint}?session=<id>&spec=<encodeURIComponent(spec_json)>` (`&` when the
 * endpoint already has a query). A relative endpoint is resolved against `baseUrl`.
 * @returns the URL, or a reason string when the endpoint is not a usable http(s) URL.
 */
export function siteStateUrl(check: SiteStateCheck, sessionId: string, baseUrl?: string): { url: string } | { error: string } {
  let u: URL;
  try {
    u = baseUrl === undefined || baseUrl === '' ? new URL(check.endpoint) : new URL(check.endpoint, baseUrl);
  } catch {
    return { error: `SiteStateCheck.endpoint ${JSON.stringify(check.endpoint)} is not a URL (base ${JSON.stringify(baseUrl ?? '')})` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return { error: `SiteStateCheck.endpoint ${JSON.stringify(check.endpoint)} must be http(s), got ${u.protocol}` };
  }
  u.hash = '';
  const sep = u.search.length > 0 ? '&' : '?';
  return { url: `${u.href}${sep}session=${encodeURIComponent(sessionId)}&spec=${encodeURIComponent(check.specJson)}` };
}

/** Runs one site-state check; never throws. */
export async function checkSiteState(check: SiteStateCheck, opts: SiteStateOptions): Promise<CheckResult> {
  const built = siteStateUrl(check, opts.sessionId, opts.baseUrl);
  if ('error' in built) return { status: 'unavailable', reason: ExcludedReason.InvalidVerifier, detail: built.error };
  const url = built.url;
  if (!verifyHostAllowed(new URL(url), opts.allowHosts, opts.baseUrl)) {
    const host = new URL(url).host;
    return {
      status: 'unavailable',
      reason: ExcludedReason.InvalidVerifier,
      detail:
        opts.allowHosts === undefined
          ? `site state endpoint host ${host} is not the task's own host; list it in OWRL_VERIFY_HOSTS to allow it`
          : `site state endpoint host ${host} is not in OWRL_VERIFY_HOSTS (${opts.allowHosts.join(',') || 'empty'})`,
    };
  }
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const doFetch: FetchLike = opts.fetch ?? ((u, init) => fetch(u, init));
  let status: number;
  let body: string;
  try {
    // Redirects are not followed: one could lead off the allowed hosts (a 3xx is a bad response).
    const res = await doFetch(url, { signal, headers: { accept: 'application/json' }, redirect: 'manual' });
    status = res.status;
    body = await res.text();
  } catch (e) {
    const detail = timeout.aborted
      ? `site state check timed out after ${opts.timeoutMs} ms`
      : signal.aborted
        ? 'site state check aborted'
        : `site state check failed: ${networkDetail(e)}`;
    return { status: 'unavailable', reason: ExcludedReason.VerifierUnavailable, detail: `${detail} (${url})` };
  }
  if (status >= 500 || status === 408 || status === 429) {
    return { status: 'unavailable', reason: ExcludedReason.VerifierUnavailable, detail: `site state check got HTTP ${status} (${url})` };
  }
  if (status < 200 || status > 299) {
    return { status: 'unavailable', reason: ExcludedReason.VerifierBadResponse, detail: `site state check got HTTP ${status} (${url})` };
  }
  return parseBody(body, url);
}

function parseBody(body: string, url: string): CheckResult {
  let parsed: unknown;
  try {
    if (body.length > MAX_BODY_CHARS) throw new Error(`body of ${body.length} chars exceeds ${MAX_BODY_CHARS}`);
    parsed = JSON.parse(body);
  } catch (e) {
    return { status: 'unavailable', reason: ExcludedReason.VerifierBadResponse, detail: `site state body is not JSON: ${(e as Error).message} (${url})` };
  }
  const ok = typeof parsed === 'object' && parsed !== null ? (parsed as { ok?: unknown }).ok : undefined;
  if (typeof ok !== 'boolean') {
    return { status: 'unavailable', reason: ExcludedReason.VerifierBadResponse, detail: `site state body has no boolean "ok": ${body.slice(0, 200)} (${url})` };
  }
  const d = (parsed as { detail?: unknown }).detail;
  const detail = typeof d === 'string' ? d : '';
  return ok ? { status: 'pass', detail: `site state ok${detail ? `: ${detail}` : ''}` } : { status: 'fail', detail: `site state not reached${detail ? `: ${detail}` : ''}` };
}

// undici wraps the socket error in `cause` (ECONNREFUSED, ECONNRESET, ...).
function networkDetail(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return e instanceof Error ? e.message : String(e);
}
