// Which URLs a page may reach (DESIGN §5 Safety): http(s) only, and no loopback, private,
// link-local, CGNAT or cloud-metadata address unless the run allowlists its host:port. Pure logic;
// the browser context applies it to every request (see guard.ts).
import net from 'node:net';

export type UrlVerdict =
  | { ok: true; host: string }
  | { ok: false; reason: 'bad_url' | 'scheme' | 'private_address'; host: string; detail: string };

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

function ipv4ToInt(ip: string): number {
  const p = ip.split('.').map(Number);
  return (((p[0] ?? 0) << 24) | ((p[1] ?? 0) << 16) | ((p[2] ?? 0) << 8) | (p[3] ?? 0)) >>> 0;
}

const V4_BLOCKED: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
];

function v4Blocked(ip: string): boolean {
  const n = ipv4ToInt(ip);
  return V4_BLOCKED.some(([base, bits]) => {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return (n & mask) === (ipv4ToInt(base) & mask);
  });
}

/** Expands an IPv6 literal to 8 16-bit groups; null when it is not one. */
function v6Groups(ip: string): number[] | null {
  if (!net.isIPv6(ip)) return null;
  let s = ip.toLowerCase();
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted?.[1] && dotted[2]) {
    const n = ipv4ToInt(dotted[2]);
    s = `${dotted[1]}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const parts = s.split('::');
  const parse = (x: string | undefined): number[] => (x ? x.split(':').map((g) => parseInt(g, 16)) : []);
  const head = parse(parts[0]);
  if (parts.length === 1) return head.length === 8 ? head : null;
  const rest = parse(parts[1]);
  const fill = 8 - head.length - rest.length;
  return fill < 0 ? null : [...head, ...new Array<number>(fill).fill(0), ...rest];
}

/** True for an IP literal (v4 or v6) in a loopback, private, link-local, ULA or similar range. */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (net.isIPv4(bare)) return v4Blocked(bare);
  const g = v6Groups(bare);
  if (!g) return false;
  const [a = 0, , , , , f = 0, s7 = 0, s8 = 0] = g;
  if (g.every((x) => x === 0)) return true; // ::
  if (g.slice(0, 7).every((x) => x === 0) && s8 === 1) return true; // ::1
  if ((a & 0xfe00) === 0xfc00) return true; // fc00::/7
  if ((a & 0xffc0) === 0xfe80) return true; // fe80::/10
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (g.slice(0, 5).every((x) => x === 0) && (f === 0xffff || f === 0)) {
    // IPv4-mapped / -compatible
    return v4Blocked(`${s7 >>> 8}.${s7 & 0xff}.${s8 >>> 8}.${s8 & 0xff}`);
  }
  return false;
}

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

/**
 * Verdict on a URL by its text alone (scheme and host name / IP literal). Names that resolve to
 * private addresses are caught by the DNS check of the request guard.
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
