// Decides which addresses the service may send to: only globally routable unicast ones (SSRF protection).
import ipaddr from 'ipaddr.js';

/** True for a globally routable unicast address; false for loopback, private, link-local, CGNAT, multicast, ... */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // ::ffff:10.0.0.1 reaches 10.0.0.1: judge the IPv4 address it carries.
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
  }
  return parsed.range() === 'unicast';
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
 * The reason a URL's host is refused before any DNS lookup, or null when it may be stored.
 * Names other than localhost are judged again at send time, after DNS resolution.
 */
export function refusalForHost(hostname: string): string | null {
  if (isLocalhostName(hostname)) return 'client_url must not point at localhost';
  const literal = literalAddress(hostname);
  if (literal !== null && !isPublicAddress(literal)) {
    return 'client_url must not point at a private, loopback, link-local or otherwise non-public address';
  }
  return null;
}
