// The marker of a webhook managed as code, read and written by the client's contract for the tool and the web UI.
import { markedName, markerKey, readMarker, roomForName } from '@jobhooks/client/contract';

test.each([
  ['Finance [[finance]]', { name: 'Finance', marker: { namespace: null, identifier: 'finance' } }],
  ['Finance [[team-a/finance.v2]]', { name: 'Finance', marker: { namespace: 'team-a', identifier: 'finance.v2' } }],
  ['Two [[words]] [[x]]', { name: 'Two [[words]]', marker: { namespace: null, identifier: 'x' } }],
  ['Plain name', null],
  ['No space[[x]]', null],
  ['Bad [[a/b/c]]', null],
  ['Bad [[-x]]', null],
  ['Empty [[]]', null],
])('readMarker(%j)', (serverName, expected) => {
  expect(readMarker(serverName)).toEqual(expected);
});

test('a marked name reads back as its name and marker; the key names the namespace when there is one', () => {
  const marker = { namespace: 'ns', identifier: 'orders' };
  expect(markedName('Orders', marker)).toBe('Orders [[ns/orders]]');
  expect(readMarker(markedName('Orders', marker))).toEqual({ name: 'Orders', marker });
  expect(markerKey(marker)).toBe('ns/orders');
  expect(markerKey({ namespace: null, identifier: 'orders' })).toBe('orders');
  expect(markedName('n'.repeat(roomForName(marker)), marker)).toHaveLength(255);
});
