// The egress check of the fence (DESIGN §5 Safety): where a connection Chromium asks for may go.
// The host is parsed the way browsers parse it (WHATWG URL: `2130706433`, `127.1`, `0x7f.1` are
// all 127.0.0.1), resolved once, and every address of the answer must be public unless the
// host is allowlisted; the verdict names the address to connect to, so that nothing resolves the
// name a second time (a name whose answer changes between two look-ups cannot rebind).
import dns from 'node:dns';
import net from 'node:net';
import type { NetReason } from '@owrl/core';
import { classifyAddress, type AddressClass } from './address-policy.js';
import { isAllowedHost, isPrivateName } from './net-policy.js';

/** Resolves a host name to all its addresses (the system resolver by default; tests inject answers). */
export type HostLookup = (hostname: string) => Promise<Array<{ address: string }>>;

const systemLookup: HostLookup = (h) => dns.promises.lookup(h, { all: true, verbatim: true });

/** Where a connection goes: a canonical host (lower-case name, dotted IPv4, or IPv6 without brackets) and a port. */
export interface EgressTarget {
  host: string;
  port: number;
}

/** Why the fence refused a connection: a non-public address, or a target it cannot make sense of. */
export type FenceReason = 'private_address' | 'bad_target';

/** Upstream failures the fence reports as the site's, with the reason code Chromium would have given. */
export type UpstreamCode = Extract<NetReason, 'dns' | 'connection_refused' | 'connection_reset' | 'connection_closed' | 'timeout' | 'network'>;

export type EgressVerdict =
  /** Go ahead: connect to `address` (one of the answer, all checked). */
  | { ok: true; address: string; allowlisted: boolean }
  /** Refused by the fence: `range` is the class of the address that decided it ('' when none). */
  | { ok: false; refused: true; reason: FenceReason; range: AddressClass | ''; detail: string }
  /** Allowed, but the upstream cannot be had (the name does not resolve). */
  | { ok: false; refused: false; code: UpstreamCode; detail: string };

/** How long a look-up may take before the connection fails as `dns`, ms. */
export const LOOKUP_TIMEOUT_MS = 5000;

/**
 * Canonical target of a CONNECT authority (`host:port`, `[v6]:port`), parsed as a browser parses a
 * URL's host; null when it is not one (no port, user info, a path).
 */
export function parseAuthority(authority: string): EgressTarget | null {
  if (!/:\d+$/.test(authority) || /[/?#@\s\\]/.test(authority)) return null;
  let u: URL;
  try {
    u = new URL(`http://${authority}`);
  } catch {
    return null;
  }
  return targetOf(u);
}

/** Canonical target of an absolute http: URL (the request line a proxy is sent); null for anything else. */
export function parseHttpTarget(url: string): EgressTarget | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  return u.protocol === 'http:' ? targetOf(u) : null;
}

function targetOf(u: URL): EgressTarget | null {
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const port = u.port === '' ? 80 : Number(u.port);
  if (host === '' || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host: host.replace(/\.$/, ''), port };
}

/** The form of a target in the allowlist and in reports: `host:port`, `[v6]:port`. */
export function authorityOf(t: EgressTarget): string {
  return net.isIPv6(t.host) ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;
}

function refused(range: AddressClass, t: EgressTarget, address: string): EgressVerdict {
  const via = address === t.host ? '' : ` (${t.host} resolves to ${address})`;
  return { ok: false, refused: true, reason: 'private_address', range, detail: `${authorityOf(t)} is a ${range.replace(/_/g, '-')} address${via}` };
}

export class EgressCheck {
  /**
   * @param allowHosts `host:port` or `host` entries whose connections go ahead whatever they resolve to.
   * @param lookup how names are resolved (one call per check).
   */
  constructor(
    private readonly allowHosts: readonly string[],
    private readonly lookup: HostLookup = systemLookup,
    private readonly timeoutMs = LOOKUP_TIMEOUT_MS,
  ) {}

  /** The verdict on one connection. Never throws: a failure of the check itself refuses. */
  async check(t: EgressTarget): Promise<EgressVerdict> {
    try {
      return await this.judge(t);
    } catch (e) {
      return { ok: false, refused: true, reason: 'bad_target', range: '', detail: `the check failed: ${(e as Error)?.message ?? String(e)}` };
    }
  }

  private async judge(t: EgressTarget): Promise<EgressVerdict> {
    const allowlisted = isAllowedHost(t.host, t.port, this.allowHosts);
    const literal = classifyAddress(t.host);
    if (literal !== null) {
      if (!allowlisted && literal !== 'public') return refused(literal, t, t.host);
      return { ok: true, address: t.host, allowlisted };
    }
    // localhost, *.localhost and the metadata names mean this machine or its cloud whatever DNS says
    if (!allowlisted && isPrivateName(t.host)) {
      const range: AddressClass = t.host === 'localhost' || t.host.endsWith('.localhost') ? 'loopback' : 'metadata';
      return { ok: false, refused: true, reason: 'private_address', range, detail: `${authorityOf(t)} names a ${range} host` };
    }
    let answer: Array<{ address: string }>;
    try {
      answer = await this.resolve(t.host);
    } catch (e) {
      return { ok: false, refused: false, code: 'dns', detail: `${t.host} does not resolve: ${(e as Error)?.message ?? String(e)}` };
    }
    const first = answer[0];
    if (!first) return { ok: false, refused: false, code: 'dns', detail: `${t.host} has no address` };
    for (const a of answer) {
      const c = classifyAddress(a.address);
      // an answer that is not an address at all is refused like a private one
      if (!allowlisted && c !== 'public') return refused(c ?? 'reserved', t, a.address);
    }
    return { ok: true, address: first.address, allowlisted };
  }

  private async resolve(host: string): Promise<Array<{ address: string }>> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.lookup(host),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
