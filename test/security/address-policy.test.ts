// Which hosts a client_url may name: only globally routable unicast addresses (design section 2, "Outbound safety").
import { isPublicAddress, refusalForHost } from '../../service/src/security/address-policy';

test.each([
  ['127.0.0.1', false],
  ['10.0.0.1', false],
  ['172.16.5.4', false],
  ['192.168.1.1', false],
  ['169.254.169.254', false],
  ['100.64.0.1', false],
  ['0.0.0.0', false],
  ['224.0.0.1', false],
  ['255.255.255.255', false],
  ['::1', false],
  ['fe80::1', false],
  ['fc00::1', false],
  ['::ffff:10.0.0.1', false],
  ['::', false],
  ['not an address', false],
  ['8.8.8.8', true],
  ['93.184.216.34', true],
  ['2606:4700:4700::1111', true],
  ['::ffff:8.8.8.8', true],
])('isPublicAddress(%s) is %s', (address, expected) => {
  expect(isPublicAddress(address)).toBe(expected);
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
