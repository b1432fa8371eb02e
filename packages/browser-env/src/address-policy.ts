// Which IP addresses a page's connections may reach (DESIGN §5 Safety): public unicast only. The
// special-purpose ranges come from ipaddr.js (its IANA tables, kept up to date there), not from a
// list of our own; what we add is the mapping to the classes the fence reports, the cloud
// metadata addresses by name, and the IPv6 forms that carry an IPv4 address inside. Pure logic.
import ipaddr from 'ipaddr.js';

/** The class of an address; everything but `public` is refused unless its host is allowlisted. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'unique_local'
  | 'metadata'
  | 'reserved';

/**
 * Instance-metadata endpoints of the clouds (AWS IPv4 and IPv6, ECS task metadata, Alibaba,
 * Oracle). They fall in refused ranges anyway; naming them says what was at stake.
 */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '169.254.170.23', 'fd00:ec2::254', 'fd00:ec2::23', '100.100.100.200', '192.0.0.192']);

const V4_CLASSES: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link_local',
  carrierGradeNat: 'cgnat',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
};

const V6_CLASSES: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  loopback: 'loopback',
  linkLocal: 'link_local',
  uniqueLocal: 'unique_local',
  multicast: 'multicast',
  unspecified: 'unspecified',
};

/** NAT64's well-known prefix 64:ff9b::/96 (RFC 6052): the last 32 bits are the IPv4 address reached. */
const NAT64 = ipaddr.IPv6.parse('64:ff9b::');

function classifyV4(a: ipaddr.IPv4): AddressClass {
  if (METADATA_ADDRESSES.has(a.toString())) return 'metadata';
  // as112, amt, TEST-NETs, 192.0.0.0/24, 240/4 ...: nothing a browsing agent needs
  return V4_CLASSES[a.range()] ?? 'reserved';
}

function embeddedV4(a: ipaddr.IPv6): ipaddr.IPv4 {
  const p = a.parts;
  return new ipaddr.IPv4([(p[6] ?? 0) >> 8, (p[6] ?? 0) & 0xff, (p[7] ?? 0) >> 8, (p[7] ?? 0) & 0xff]);
}

function classifyV6(a: ipaddr.IPv6): AddressClass {
  if (a.isIPv4MappedAddress()) return classifyV4(a.toIPv4Address());
  if (METADATA_ADDRESSES.has(a.toString())) return 'metadata';
  if (a.match(NAT64, 96)) {
    // An IPv6-only network with DNS64 reaches every IPv4 site this way: judge the IPv4 address.
    return classifyV4(embeddedV4(a));
  }
  // IPv4-compatible ::a.b.c.d (deprecated, ::/96 beyond :: and ::1) is not in ipaddr's tables.
  if (a.parts.slice(0, 6).every((x) => x === 0) && a.range() === 'unicast') return 'reserved';
  // 6to4, Teredo, the translated forms, documentation and benchmarking ranges ...: refused
  return V6_CLASSES[a.range()] ?? 'reserved';
}

/**
 * The class of an IP address in canonical text form (dotted IPv4, IPv6 with or without brackets);
 * null when `ip` is not one. v4-mapped IPv6 addresses are judged as the IPv4 address they reach.
 */
export function classifyAddress(ip: string): AddressClass | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return classifyV4(ipaddr.IPv4.parse(bare));
  if (!ipaddr.IPv6.isValid(bare)) return null;
  return classifyV6(ipaddr.IPv6.parse(bare));
}

/** True for an IP address in any class but `public` (false for text that is not an address). */
export function isPrivateAddress(ip: string): boolean {
  const c = classifyAddress(ip);
  return c !== null && c !== 'public';
}
