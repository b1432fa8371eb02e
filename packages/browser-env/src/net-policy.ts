// Which URLs and hosts a page may reach (DESIGN §5 Safety), by their text: http(s) only, no
// loopback, private, link-local, CGNAT or cloud-metadata address or name unless the run allowlists
// its host:port. The tools refuse such a start URL or goto_url at once with it; what a page does
// on its own is checked at the connection by the fence (egress-check.ts), which also resolves
// names. Pure logic.
import net from 'node:net';
import { isPrivateAddress } from './address-policy.js';

export { isPrivateAddress };

export type UrlVerdict =
  | { ok: true; host: string }
  | { ok: false; reason: 'bad_url' | 'scheme' | 'private_address'; host: string; detail: string };

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** True for host names that always mean this machine or a metadata service. */
export function isPrivateName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || METADATA_NAMES.has(h) || isPrivateAddress(h);
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' || protocol === 'wss:' ? '443' : '80';
}

/** Whether `host:port` (or the bare host) of a URL is in the allowlist. */
export function isAllowed(u: URL, allowHosts: readonly string[]): boolean {
  if (allowHosts.length === 0) return false;
  const host = u.hostname.toLowerCase();
  const port = u.port || defaultPort(u.protocol);
  return allowHosts.includes(`${host}:${port}`) || allowHosts.includes(host);
}

/** isAllowed for a canonical host (an IPv6 address without brackets) and port. */
export function isAllowedHost(host: string, port: number, allowHosts: readonly string[]): boolean {
  if (allowHosts.length === 0) return false;
  const h = net.isIPv6(host) ? `[${host}]` : host.toLowerCase();
  return allowHosts.includes(`${h}:${port}`) || allowHosts.includes(h);
}

/**
 * Verdict on a URL by its text alone (scheme and host name / IP literal). Names that resolve to
 * private addresses are caught by the fence when a connection is made (egress-check.ts).
 */
export function checkUrl(url: string, allowHosts: readonly string[], schemes: readonly string[] = ['http:', 'https:']): UrlVerdict {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, reason: 'bad_url', host: '', detail: `not a URL: ${url.slice(0, 200)}` };
  }
  if (!schemes.includes(u.protocol)) return { ok: false, reason: 'scheme', host: u.host, detail: `scheme ${u.protocol} not allowed` };
  if (u.hostname === '') return { ok: false, reason: 'bad_url', host: '', detail: 'no host' };
  if (isPrivateName(u.hostname) && !isAllowed(u, allowHosts)) {
    return { ok: false, reason: 'private_address', host: u.host, detail: `${u.host} is a loopback/private address` };
  }
  return { ok: true, host: u.host };
}
