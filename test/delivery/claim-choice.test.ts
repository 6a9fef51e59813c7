// The dispatcher takes the oldest due deliveries but never more than an endpoint's share.
import { chooseClaims, saturatedWebhooks } from '../../service/src/delivery/claim-choice';

const due = (...webhooks: string[]) => webhooks.map((webhookId, index) => ({ id: `d${index}`, webhookId }));

test('takes the oldest due deliveries up to the free room', () => {
  const chosen = chooseClaims(due('a', 'b', 'c', 'd'), { total: 3, perWebhook: 10, inFlight: new Map() });
  expect(chosen.map((c) => c.id)).toEqual(['d0', 'd1', 'd2']);
});

test('a slow endpoint at its share does not take the room of the others', () => {
  const chosen = chooseClaims(due('slow', 'slow', 'slow', 'fast', 'slow', 'other'), {
    total: 10,
    perWebhook: 2,
    inFlight: new Map([['slow', 1]]),
  });
  expect(chosen.map((c) => c.webhookId)).toEqual(['slow', 'fast', 'other']);
});

test('webhooks at their share are excluded from the claim query', () => {
  expect(
    saturatedWebhooks({
      total: 5,
      perWebhook: 2,
      inFlight: new Map([
        ['a', 2],
        ['b', 1],
        ['c', 3],
      ]),
    }),
  ).toEqual(['a', 'c']);
});
