// Operational events through each backend's own store (docs/operational-webhooks.md): the facts a batch of results
// makes true are written in its transaction, as one event each with its own trace and a delivery to each operational
// endpoint that wants its type. The planning rules themselves are tested on a fake clock in
// test/store/operational-facts.test.ts; this checks both stores write what they plan.
import { parseTraceparent } from '../../../service/src/core/trace-context';
import { nextDispatchState } from '../../../service/src/delivery/archive-policy';
import { fakeOperationalEventMaker } from '../../support/operational-event-maker';
import {
  account,
  addWebhook,
  attemptOf,
  claimAll,
  event,
  fanOutToAll,
  SECOND,
  T0,
  useStore,
  webhook,
} from './fixtures';

const store = useStore();
const maker = fakeOperationalEventMaker({ idPrefix: 'op_' });

test('a delivery that fails for good at the 500th failure in a row makes webhook.failing (50 %) and delivery.exhausted, each delivered to the endpoint that wants it', async () => {
  await store().accounts.insert(account(1));
  await addWebhook(store(), webhook(1, 'wsu_a', { consecutiveFailures: 499, failingSince: T0 - SECOND }));
  await addWebhook(
    store(),
    webhook(1, 'wsu_ops', { kind: 'operational', eventTypes: ['webhook.failing', 'delivery.exhausted'] }),
  );
  await store().events.record(
    event(1, 'wev_1'),
    fanOutToAll('wev_1', (hook) => hook.id === 'wsu_a'),
  );
  const [claimed] = await claimAll(store(), T0);
  expect(claimed).toMatchObject({ webhookId: 'wsu_a' });

  await store().deliveries.recordAttempts(
    [attemptOf(claimed!, { requestedAt: T0 + 1, delivery: { state: 'failed' } })],
    nextDispatchState,
    maker,
  );

  const operational = await claimAll(store(), T0 + 2 * SECOND);
  expect(operational.map((d) => [d.webhookId, d.eventType]).sort()).toEqual([
    ['wsu_ops', 'delivery.exhausted'],
    ['wsu_ops', 'webhook.failing'],
  ]);
  const failing = JSON.parse(operational.find((d) => d.eventType === 'webhook.failing')!.payload.toString('utf8'));
  expect(failing).toMatchObject({
    type: 'webhook.failing',
    data: { webhook: { id: 'wsu_a' }, threshold_percent: 50, consecutive_failures: 500 },
  });
  // Each event has a trace of its own, which every attempt of its delivery continues.
  for (const delivery of operational) expect(parseTraceparent(delivery.trace?.traceparent)).not.toBeNull();
  expect(new Set(operational.map((d) => d.trace?.traceparent)).size).toBe(2);
  // The purge keeps an event while a delivery names it: it takes wev_1, whose delivery is done, not the two events
  // whose deliveries are in flight.
  expect((await store().deliveryLog.purgeOlderThan(T0 + 3 * SECOND)).events).toBe(1);
});
