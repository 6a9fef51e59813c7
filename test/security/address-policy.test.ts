// Which hosts a client_url may name: only globally routable unicast addresses (docs/decisions.md#18-outbound-safety).
import { isPublicAddress, refusalForHost } from '../../service/src/security/address-policy';

/** One address from each range of IANA's IPv4 and IPv6 special-purpose registries that is not globally reachable. */
const NOT_GLOBALLY_REACHABLE: Array<[string, string]> = [
  ['0.0.0.0/8 this network', '0.1.2.3'],
  ['10.0.0.0/8 private use', '10.0.0.1'],
  ['100.64.0.0/10 shared address space', '100.64.0.1'],
  ['127.0.0.0/8 loopback', '127.0.0.1'],
  ['169.254.0.0/16 link local (cloud metadata)', '169.254.169.254'],
  ['172.16.0.0/12 private use', '172.16.5.4'],
  ['192.0.0.0/24 IETF protocol assignments', '192.0.0.8'],
  ['192.0.0.0/29 IPv4 service continuity prefix', '192.0.0.1'],
  ['192.0.0.170/32 NAT64/DNS64 discovery', '192.0.0.170'],
  ['192.0.2.0/24 documentation', '192.0.2.10'],
  ['192.88.99.0/24 deprecated 6to4 relay anycast', '192.88.99.1'],
  ['192.168.0.0/16 private use', '192.168.1.1'],
  ['198.18.0.0/15 benchmarking', '198.19.255.1'],
  ['198.51.100.0/24 documentation', '198.51.100.7'],
  ['203.0.113.0/24 documentation', '203.0.113.9'],
  ['224.0.0.0/4 multicast', '224.0.0.1'],
  ['240.0.0.0/4 reserved', '240.0.0.1'],
  ['255.255.255.255/32 limited broadcast', '255.255.255.255'],
  ['::1/128 loopback', '::1'],
  ['::/128 unspecified', '::'],
  ['::/96 IPv4-compatible (deprecated)', '::127.0.0.1'],
  ['::/96 IPv4-compatible, public IPv4 inside', '::808:808'],
  ['::ffff:0:0/96 IPv4-mapped, private IPv4 inside', '::ffff:10.0.0.1'],
  ['64:ff9b::/96 NAT64, private IPv4 inside', '64:ff9b::a00:1'],
  ['64:ff9b:1::/48 local-use IPv4/IPv6 translation', '64:ff9b:1::1'],
  ['100::/64 discard-only', '100::1'],
  ['100:0:0:1::/64 dummy IPv6 prefix', '100:0:0:1::1'],
  ['2001::/23 IETF protocol assignments', '2001:2::1'],
  ['2001::/32 Teredo', '2001:0:4136:e378::1'],
  ['2001:db8::/32 documentation', '2001:db8::1'],
  ['2002::/16 6to4', '2002:a00:1::1'],
  ['3fff::/20 documentation', '3fff::1'],
  ['5f00::/16 segment routing SIDs', '5f00::1'],
  ['fc00::/7 unique local', 'fd00::1'],
  ['fe80::/10 link-local unicast', 'fe80::1'],
  ['ff00::/8 multicast', 'ff02::1'],
];

test.each(NOT_GLOBALLY_REACHABLE)('%s (%s) is refused', (_range, address) => {
  expect(isPublicAddress(address)).toBe(false);
  expect(refusalForHost(address.includes(':') ? `[${address}]` : address)).not.toBeNull();
});

test.each([
  ['8.8.8.8'],
  ['93.184.216.34'],
  ['192.31.196.1'], // AS112-v4: special-purpose, globally reachable
  ['2606:4700:4700::1111'],
  ['::ffff:8.8.8.8'],
  ['64:ff9b::808:808'], // NAT64 of 8.8.8.8
  ['2001:4:112::1'], // AS112-v6 inside 2001::/23, globally reachable
  ['2620:4f:8000::1'], // AS112 direct delegation
])('%s is a public address', (address) => {
  expect(isPublicAddress(address)).toBe(true);
});

test('the URL form of an IPv4-compatible loopback address is refused at create time', () => {
  // WHATWG URL parsing writes [::127.0.0.1] as [::7f00:1], which is what reaches the policy.
  expect(new URL('http://[::127.0.0.1]/').hostname).toBe('[::7f00:1]');
  expect(refusalForHost(new URL('http://[::127.0.0.1]/').hostname)).not.toBeNull();
});

test('text that is not an address is not public', () => {
  expect(isPublicAddress('not an address')).toBe(false);
});

test.each([
  ['localhost', true],
  ['LOCALHOST.', true],
  ['api.localhost', true],
  ['127.0.0.1', true],
  ['[::1]', true],
  ['[fd00::1]', true],
  ['example.com', false],
  ['8.8.8.8', false],
  ['[2606:4700:4700::1111]', false],
])('refusalForHost(%s) refuses: %s', (host, refused) => {
  expect(refusalForHost(host) !== null).toBe(refused);
});
