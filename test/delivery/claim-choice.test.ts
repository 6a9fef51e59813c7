// The dispatcher takes the oldest due deliveries but never more than an endpoint's share.
import { chooseClaims, saturatedSubscriptions } from '../../service/src/delivery/claim-choice';

const due = (...subscriptions: string[]) => subscriptions.map((subscriptionId, index) => ({ id: `d${index}`, subscriptionId }));

test('takes the oldest due deliveries up to the free room', () => {
  const chosen = chooseClaims(due('a', 'b', 'c', 'd'), { total: 3, perSubscription: 10, inFlight: new Map() });
  expect(chosen.map((c) => c.id)).toEqual(['d0', 'd1', 'd2']);
});

test('a slow endpoint at its share does not take the room of the others', () => {
  const chosen = chooseClaims(due('slow', 'slow', 'slow', 'fast', 'slow', 'other'), {
    total: 10,
    perSubscription: 2,
    inFlight: new Map([['slow', 1]]),
  });
  expect(chosen.map((c) => c.subscriptionId)).toEqual(['slow', 'fast', 'other']);
});

test('subscriptions at their share are excluded from the claim query', () => {
  expect(saturatedSubscriptions({ total: 5, perSubscription: 2, inFlight: new Map([['a', 2], ['b', 1], ['c', 3]]) })).toEqual(['a', 'c']);
});
