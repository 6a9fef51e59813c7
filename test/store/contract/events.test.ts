// Store contract: recording an event and its fan-out in one step, once per (account, run, event type).
import type { PlannedDeliveries } from '../../../service/src/domain/delivery';
import type { FanOutWebhook } from '../../../service/src/domain/webhook';
import {
  accountWithWebhooks,
  addWebhook,
  candidatesAt,
  deliveryId,
  event,
  fanOutToAll,
  headOf,
  recordEvent,
  SECOND,
  T0,
  TAIL,
  traceparentOf,
  useStore,
  webhook,
  webhooksSeenByFanOut,
} from './fixtures';
import { inspectDatabase } from '../../support/db-inspect';

import { REFUSAL, refuseRows } from '../../support/refused-rows';

const store = useStore();

beforeEach(async () => {
  await accountWithWebhooks(store(), 1, ['wsu_a', 'wsu_b', 'wsu_c']);
  await accountWithWebhooks(store(), 2, ['wsu_z']);
});

test('an event is recorded with its pending and skipped deliveries counted', async () => {
  const outcome = await store().events.record(
    event(1, 'wev_1'),
    fanOutToAll('wev_1', (hook) => hook.id !== 'wsu_b'),
  );
  expect(outcome).toEqual({ kind: 'recorded', queued: 2, skipped: 1 });
});

test("the fan-out is given what it reads of the account's webhooks, in creation order, and no other account's", async () => {
  // Created later but earlier in time: creation order is createdAt, then id.
  await addWebhook(store(), webhook(1, 'wsu_0', { createdAt: T0 - 1 }));
  const given: Array<readonly FanOutWebhook[]> = [];
  await store().events.record(event(1, 'wev_1'), (webhooks) => {
    given.push(webhooks);
    return { payloadTail: TAIL, deliveries: [] };
  });
  expect(given).toHaveLength(1);
  expect(given[0]!.map((w) => w.id)).toEqual(['wsu_0', 'wsu_a', 'wsu_b', 'wsu_c']);
  const { id, name, eventTypes, jobIds, active, archivedAt } = webhook(1, 'wsu_a', { createdAt: T0 });
  expect(given[0]![1]).toEqual({ id, name, eventTypes, jobIds, active, archivedAt });
});

test("events of several accounts taken in together each fan out to their own account's webhooks, or none", async () => {
  await accountWithWebhooks(store(), 3, []);
  const seen = await Promise.all([
    webhooksSeenByFanOut(store(), event(1, 'wev_1')),
    webhooksSeenByFanOut(store(), event(3, 'wev_2')),
    webhooksSeenByFanOut(store(), event(2, 'wev_3')),
    webhooksSeenByFanOut(store(), event(1, 'wev_4', { runId: 'r4' })),
  ]);
  expect(seen.map((webhooks) => webhooks.map((w) => w.id))).toEqual([
    ['wsu_a', 'wsu_b', 'wsu_c'],
    [],
    ['wsu_z'],
    ['wsu_a', 'wsu_b', 'wsu_c'],
  ]);
});

test("each event's fan-out sees the webhooks as they are then: changed through the store or by another connection", async () => {
  const seen = async (eventId: string) =>
    (await webhooksSeenByFanOut(store(), event(1, eventId, { runId: eventId }))).map(
      ({ id, name, eventTypes, jobIds, active, archivedAt }) => ({ id, name, eventTypes, jobIds, active, archivedAt }),
    );
  const before = await seen('wev_1');
  expect(before.map((w) => w.id)).toEqual(['wsu_a', 'wsu_b', 'wsu_c']);

  await store().webhooks.update(1, 'wsu_a', (current) => ({
    ...current,
    name: 'renamed',
    eventTypes: ['job.run.errored'],
    jobIds: ['7'],
  }));
  await store().webhooks.update(1, 'wsu_b', (current) => ({ ...current, active: false }));
  await store().webhooks.delete(1, 'wsu_c');
  await addWebhook(store(), webhook(1, 'wsu_d', { createdAt: T0 + SECOND }));
  // Another account's change leaves this one's alone, and is seen by its own.
  await store().webhooks.update(2, 'wsu_z', (current) => ({ ...current, name: 'other' }));
  const after = await seen('wev_2');
  expect(after).toEqual([
    { ...before[0], name: 'renamed', eventTypes: ['job.run.errored'], jobIds: ['7'] },
    { ...before[1], active: false },
    expect.objectContaining({ id: 'wsu_d', active: true, archivedAt: null }),
  ]);
  expect((await webhooksSeenByFanOut(store(), event(2, 'wev_3'))).map((w) => w.name)).toEqual(['other']);

  const other = inspectDatabase(store.where());
  try {
    await other.run('UPDATE webhooks SET archived_at = ? WHERE id = ?', [T0, 'wsu_a']);
    await other.run('DELETE FROM webhooks WHERE id = ?', ['wsu_d']);
  } finally {
    await other.close();
  }
  expect(await seen('wev_4')).toEqual([{ ...after[0], archivedAt: T0 }, after[1]]);
});

test('an event of the same account, run and type is a duplicate naming the first, and plans nothing', async () => {
  await recordEvent(store(), event(1, 'wev_1', { runId: 'r1' }));
  const fanOut = jest.fn(fanOutToAll('wev_2'));
  expect(await store().events.record(event(1, 'wev_2', { runId: 'r1', createdAt: T0 + SECOND }), fanOut)).toEqual({
    kind: 'duplicate',
    eventId: 'wev_1',
  });
  expect(fanOut).not.toHaveBeenCalled();
  expect(await store().deliveries.get('wsu_a', deliveryId('wev_2', 'wsu_a'))).toBeNull();
});

test('another event type of the run, or the same run and type in another account, is not a duplicate', async () => {
  await recordEvent(store(), event(1, 'wev_1', { runId: 'r1', eventType: 'job.run.started' }));
  expect(await store().events.record(event(1, 'wev_2', { runId: 'r1' }), fanOutToAll('wev_2'))).toMatchObject({
    kind: 'recorded',
  });
  expect(await store().events.record(event(2, 'wev_3', { runId: 'r1' }), fanOutToAll('wev_3'))).toMatchObject({
    kind: 'recorded',
  });
});

test('two events of one run and type recorded at the same moment: one is recorded, the other is its duplicate', async () => {
  const [first, second] = await Promise.all([
    store().events.record(event(1, 'wev_1', { runId: 'r1' }), fanOutToAll('wev_1')),
    store().events.record(event(1, 'wev_2', { runId: 'r1' }), fanOutToAll('wev_2')),
  ]);
  const outcomes = [first!, second!];
  const recorded = outcomes.findIndex((o) => o.kind === 'recorded');
  expect(recorded).not.toBe(-1);
  expect(outcomes[1 - recorded]).toEqual({ kind: 'duplicate', eventId: ['wev_1', 'wev_2'][recorded] });
  expect(await store().deliveries.countDue(T0)).toBe(3);
});

test('a fan-out that throws rejects its own event only; the others of the same moment are recorded', async () => {
  const failing = (): PlannedDeliveries => {
    throw new Error('fan-out failed');
  };
  const settled = await Promise.allSettled([
    store().events.record(event(1, 'wev_1', { runId: 'r1' }), fanOutToAll('wev_1')),
    store().events.record(event(1, 'wev_2', { runId: 'r2' }), failing),
    store().events.record(event(1, 'wev_3', { runId: 'r3' }), fanOutToAll('wev_3')),
  ]);
  expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((settled[1] as PromiseRejectedResult).reason).toEqual(new Error('fan-out failed'));
  expect(await store().deliveries.countDue(T0)).toBe(6);
  // Nothing of the failed one was kept: recorded again, it is not a duplicate.
  expect(await store().events.record(event(1, 'wev_4', { runId: 'r2' }), fanOutToAll('wev_4'))).toMatchObject({
    kind: 'recorded',
  });
});

test('an event row the database refuses fails its own event only; the others of the same moment are recorded', async () => {
  await refuseRows(store.where(), { table: 'events', when: "NEW.run_id = 'refused'" });
  const settled = await Promise.allSettled([
    store().events.record(event(1, 'wev_1', { runId: 'r1' }), fanOutToAll('wev_1')),
    store().events.record(event(1, 'wev_2', { runId: 'refused' }), fanOutToAll('wev_2')),
    store().events.record(event(1, 'wev_3', { runId: 'r3' }), fanOutToAll('wev_3')),
  ]);
  expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(String((settled[1] as PromiseRejectedResult).reason)).toContain(REFUSAL);
  expect(await store().deliveries.countDue(T0)).toBe(6);
});

test("a pending delivery is due at its event's time, not before, and carries the head, the event's tail and trace", async () => {
  const at = T0 + 7 * SECOND;
  const trace = { traceparent: traceparentOf('wev_1'), tracestate: 'vendor=1' };
  await recordEvent(store(), event(1, 'wev_1', { createdAt: at, eventType: 'job.run.errored', trace }));
  expect(await store().deliveries.countDue(at - 1)).toBe(0);
  expect(await candidatesAt(store(), at - 1)).toEqual([]);
  expect(await store().deliveries.countDue(at)).toBe(3);
  const offered = await candidatesAt(store(), at);
  expect(offered.map((c) => [c.id, c.webhookId, c.accountId, c.dueAt]).sort()).toEqual(
    ['wsu_a', 'wsu_b', 'wsu_c'].map((hook) => [deliveryId('wev_1', hook), hook, 1, at]),
  );
  const id = deliveryId('wev_1', 'wsu_b');
  expect(await store().deliveries.get('wsu_b', id)).toEqual({
    id,
    eventId: 'wev_1',
    eventType: 'job.run.errored',
    webhookId: 'wsu_b',
    state: 'pending',
    payload: Buffer.concat([headOf(id), TAIL]),
    trace,
    attempts: 0,
  });
});

test('a skipped delivery is kept as skipped and never offered to a claim', async () => {
  await store().events.record(
    event(1, 'wev_1'),
    fanOutToAll('wev_1', (hook) => hook.id === 'wsu_a'),
  );
  expect((await store().deliveries.get('wsu_b', deliveryId('wev_1', 'wsu_b')))?.state).toBe('skipped');
  expect((await candidatesAt(store(), T0 + 3600 * SECOND)).map((c) => c.id)).toEqual([deliveryId('wev_1', 'wsu_a')]);
  expect(await store().deliveries.countDue(T0 + 3600 * SECOND)).toBe(1);
});

test('an event no webhook wants is still recorded, so it is recognised when it comes again', async () => {
  const none = () => ({ payloadTail: TAIL, deliveries: [] });
  expect(await store().events.record(event(1, 'wev_1', { runId: 'r1' }), none)).toEqual({
    kind: 'recorded',
    queued: 0,
    skipped: 0,
  });
  expect(await store().events.record(event(1, 'wev_2', { runId: 'r1' }), none)).toEqual({
    kind: 'duplicate',
    eventId: 'wev_1',
  });
});
