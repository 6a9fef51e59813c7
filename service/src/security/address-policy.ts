// Decides which addresses the service may send to: only globally routable unicast ones (SSRF protection).
import ipaddr from 'ipaddr.js';

/**
 * The IPv4 ranges of IANA's special-purpose address registry that are not globally reachable (plus the
 * deprecated 6to4 relay anycast, whose traffic goes to a relay of unknown location); multicast and broadcast
 * are refused too, as not unicast.
 */
const NON_GLOBAL_IPV4 = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private use
  '100.64.0.0/10', // shared address space (CGNAT)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link local
  '172.16.0.0/12', // private use
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation (TEST-NET-1)
  '192.88.99.0/24', // 6to4 relay anycast (deprecated)
  '192.168.0.0/16', // private use
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation (TEST-NET-2)
  '203.0.113.0/24', // documentation (TEST-NET-3)
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and 255.255.255.255 (limited broadcast)
].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

/** Only IPv6 global unicast (2000::/3) can be public; these parts of it are not globally reachable. */
const GLOBAL_UNICAST_IPV6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NON_GLOBAL_IPV6 = [
  '2001::/23', // IETF protocol assignments (Teredo, benchmarking, ORCHID; the few global ones below)
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4: carries an IPv4 address of any kind
  '3fff::/20', // documentation
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));
/** The globally reachable exceptions inside 2001::/23 in the registry. */
const GLOBAL_IN_IETF_IPV6 = [
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
  '2001:3::/32',
  '2001:4:112::/48',
  '2001:20::/28',
  '2001:30::/28',
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));
/** Prefixes that carry an IPv4 address to judge instead: IPv4-mapped, and the NAT64 well-known prefix. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

const inAny = <T extends ipaddr.IPv4 | ipaddr.IPv6>(address: T, ranges: Array<[T, number]>) =>
  ranges.some((range) => address.match(range));

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return !inAny(address, NON_GLOBAL_IPV4);
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  // ::ffff:10.0.0.1 and 64:ff9b::10.0.0.1 reach 10.0.0.1: judge the IPv4 address they carry.
  if (address.isIPv4MappedAddress()) return isPublicIPv4(address.toIPv4Address());
  if (address.match(NAT64_WELL_KNOWN)) return isPublicIPv4(new ipaddr.IPv4(address.toByteArray().slice(12)));
  if (!address.match(GLOBAL_UNICAST_IPV6)) return false; // ::/96 IPv4-compatible, ULA, link-local, multicast, discard, ...
  return !inAny(address, NON_GLOBAL_IPV6) || inAny(address, GLOBAL_IN_IETF_IPV6);
}

/** True for a globally reachable unicast address; false for every special-purpose range that is not. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? isPublicIPv4(parsed as ipaddr.IPv4) : isPublicIPv6(parsed as ipaddr.IPv6);
}

/** The literal address inside a URL hostname (`[::1]` -> `::1`), or null when the host is a name. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}

function isLocalhostName(hostname: string): boolean {
  const lower = hostname.toLowerCase().replace(/\.$/, '');
  return lower === 'localhost' || lower.endsWith('.localhost');
}

/**
 * Ends every refusal of a non-public address, at create time and at send time: the setting that lifts the
 * protection, and when it is meant for, so that a first webhook to a receiver on the same machine is one step away.
 */
export const ALLOW_PRIVATE_URLS_HINT =
  'to allow it for local development and tests, start jobhooks with JOBHOOKS_ALLOW_PRIVATE_URLS=1';

/**
 * The reason a URL's host is refused before any DNS lookup, or null when it may be stored.
 * Names other than localhost are judged again at send time, after DNS resolution.
 */
export function refusalForHost(hostname: string): string | null {
  if (isLocalhostName(hostname)) return `client_url must not point at localhost; ${ALLOW_PRIVATE_URLS_HINT}.`;
  const literal = literalAddress(hostname);
  if (literal !== null && !isPublicAddress(literal)) {
    return `client_url must not point at a private, loopback, link-local or otherwise non-public address; ${ALLOW_PRIVATE_URLS_HINT}.`;
  }
  return null;
}
