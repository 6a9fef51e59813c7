// The lookup handed to the socket returns only addresses that passed the check, so the connection uses a checked one;
// names resolve from the hosts table a test gives, and with DNS otherwise.
import type { LookupAddress } from 'node:dns';
import { createGuardedLookup, resolverWith } from '../../service/src/delivery/guarded-lookup';

function lookupWith(
  addresses: LookupAddress[],
  allowPrivate: boolean,
  options: { all?: boolean; family?: number } = {},
) {
  const lookup = createGuardedLookup(async () => addresses, allowPrivate);
  return new Promise<{ error: Error | null; result: unknown }>((resolve) => {
    lookup('host.example', options, (error, address, family) =>
      resolve({ error, result: options.all ? address : { address, family } }),
    );
  });
}

const MIXED: LookupAddress[] = [
  { address: '10.0.0.5', family: 4 },
  { address: '93.184.216.34', family: 4 },
  { address: 'fd00::1', family: 6 },
  { address: '2606:2800:220:1::1', family: 6 },
];

test('of a mix of private and public addresses, only the public ones are handed to the socket', async () => {
  expect(await lookupWith(MIXED, false, { all: true })).toEqual({
    error: null,
    result: [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ],
  });
});

test('a single-address lookup gets the first public address of the wanted family', async () => {
  expect((await lookupWith(MIXED, false, { family: 6 })).result).toEqual({ address: '2606:2800:220:1::1', family: 6 });
  expect((await lookupWith(MIXED, false)).result).toEqual({ address: '93.184.216.34', family: 4 });
});

test('only private addresses: an error, no address', async () => {
  const { error } = await lookupWith([{ address: '127.0.0.1', family: 4 }], false, { all: true });
  expect(error?.message).toMatch(/non-public/);
});

test('JOBHOOKS_ALLOW_PRIVATE_URLS keeps private addresses', async () => {
  expect((await lookupWith(MIXED, true, { all: true })).result).toEqual(MIXED);
});

test('a name in the hosts table resolves to the addresses listed there', async () => {
  const listed = [
    { address: '10.0.0.5', family: 4 as const },
    { address: 'fd00::1', family: 6 as const },
  ];
  expect(await resolverWith({ 'hooks.example': listed })('hooks.example')).toEqual(listed);
});

test('a name not in the hosts table goes to DNS, and one that only Object.prototype has is not in the table', async () => {
  // A stand-in for DNS, so the test asks no name server outside this machine.
  const asked: string[] = [];
  const dns = async (name: string) => {
    asked.push(name);
    return [{ address: '127.0.0.9', family: 4 }];
  };
  const resolve = resolverWith({ 'hooks.example': [{ address: '10.0.0.5', family: 4 }] }, dns);
  expect(await resolve('other.example')).toEqual([{ address: '127.0.0.9', family: 4 }]);
  expect(await resolve('constructor')).toEqual([{ address: '127.0.0.9', family: 4 }]);
  expect(asked).toEqual(['other.example', 'constructor']);
});
