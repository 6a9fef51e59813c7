// Store contract: the delivery log (newest first, filtered, paged), each delivery's attempts, and the purge of
// what the retention period left behind.
import type { EventType } from '@jobhooks/client/contract';
import {
  accountWithWebhooks,
  attemptOf,
  claimRequest,
  countFailures,
  deliveryId,
  event,
  recordEvent,
  SECOND,
  T0,
  TAIL,
  testSendEntry,
  useStore,
} from './fixtures';

const store = useStore();

beforeEach(async () => {
  await accountWithWebhooks(store(), 1, ['wsu_a', 'wsu_b']);
});

const page = (offset = 0, limit = 50) => ({ offset, limit });
const listed = async (filter = {}, offset = 0, limit = 50) => {
  const { items, total } = await store().deliveryLog.list('wsu_a', page(offset, limit), filter);
  return { at: items.map((item) => item.requestedAt - T0), total };
};

describe('append and list', () => {
  test('an appended test send is listed whole, with an id, its headers and excerpt', async () => {
    const sent = testSendEntry({
      statusCode: '418',
      error: 'teapot',
      success: false,
      responseExcerpt: 'short and stout',
      responseHeaders: { 'content-type': 'text/plain', 'x-request-id': 'abc' },
    });
    await store().deliveryLog.append(sent);
    expect(await store().deliveryLog.list('wsu_a', page())).toEqual({
      items: [{ ...sent, id: expect.any(Number) }],
      total: 1,
    });
  });

  test('an empty excerpt and no headers are read back as empty', async () => {
    await store().deliveryLog.append(
      testSendEntry({ responseExcerpt: '', responseHeaders: {}, statusCode: '0', error: 'refused' }),
    );
    const [item] = (await store().deliveryLog.list('wsu_a', page())).items;
    expect(item).toMatchObject({ responseExcerpt: '', responseHeaders: {}, error: 'refused' });
  });

  test('appending to a webhook deleted meanwhile resolves and writes nothing', async () => {
    await store().webhooks.delete(1, 'wsu_b');
    await expect(store().deliveryLog.append(testSendEntry({ webhookId: 'wsu_b' }))).resolves.toBeUndefined();
    expect(await store().deliveryLog.list('wsu_b', page())).toEqual({ items: [], total: 0 });
  });

  test("a deleted webhook's log goes with it, and another webhook's stays", async () => {
    await store().deliveryLog.append(testSendEntry());
    await store().deliveryLog.append(testSendEntry({ requestedAt: T0 + 1 }));
    await store().deliveryLog.append(testSendEntry({ webhookId: 'wsu_b' }));
    expect(await store().webhooks.delete(1, 'wsu_a')).toBe(true);
    expect(await store().deliveryLog.list('wsu_a', page())).toEqual({ items: [], total: 0 });
    expect((await store().deliveryLog.list('wsu_b', page())).total).toBe(1);
  });

  test('appending the attempt of a delivery purged meanwhile (a redelivery of an old one) resolves and writes nothing', async () => {
    await expect(
      store().deliveryLog.append(testSendEntry({ deliveryId: 'wdl_purged', eventId: 'wev_old', isTest: false })),
    ).resolves.toBeUndefined();
    expect(await store().deliveryLog.list('wsu_a', page())).toEqual({ items: [], total: 0 });
  });

  test("the log lists the webhook's rows newest first, a tie newest-appended first, in pages with the total", async () => {
    for (const [at, code] of [
      [2, '201'],
      [5, '202'],
      [2, '203'],
      [9, '204'],
    ] as const)
      await store().deliveryLog.append(testSendEntry({ requestedAt: T0 + at, statusCode: code }));
    await store().deliveryLog.append(testSendEntry({ webhookId: 'wsu_b', requestedAt: T0 + 100 }));

    const all = await store().deliveryLog.list('wsu_a', page());
    expect(all.items.map((item) => item.statusCode)).toEqual(['204', '202', '203', '201']);
    expect(all.total).toBe(4);
    expect(all.items[2]!.id).toBeGreaterThan(all.items[3]!.id);
    const second = await store().deliveryLog.list('wsu_a', page(1, 2));
    expect(second).toEqual({ items: all.items.slice(1, 3), total: 4 });
  });

  describe('filters', () => {
    const rows: Array<[number, boolean, EventType]> = [
      [10, true, 'job.run.completed'],
      [20, false, 'job.run.completed'],
      [30, false, 'job.run.errored'],
      [40, true, 'job.run.started'],
    ];
    beforeEach(async () => {
      for (const [at, success, eventType] of rows)
        await store().deliveryLog.append(testSendEntry({ requestedAt: T0 + at, success, eventType, isTest: false }));
    });

    test('succeeded selects the successes or the others', async () => {
      expect(await listed({ succeeded: true })).toEqual({ at: [40, 10], total: 2 });
      expect(await listed({ succeeded: false })).toEqual({ at: [30, 20], total: 2 });
    });

    test('eventType selects one type', async () => {
      expect(await listed({ eventType: 'job.run.completed' })).toEqual({ at: [20, 10], total: 2 });
      expect(await listed({ eventType: 'job.run.errored' })).toEqual({ at: [30], total: 1 });
    });

    test('since is inclusive and until exclusive', async () => {
      expect(await listed({ since: T0 + 20 })).toEqual({ at: [40, 30, 20], total: 3 });
      expect(await listed({ until: T0 + 30 })).toEqual({ at: [20, 10], total: 2 });
      expect(await listed({ since: T0 + 20, until: T0 + 40 })).toEqual({ at: [30, 20], total: 2 });
    });

    test('filters combine, and a filtered list pages with the filtered total', async () => {
      expect(await listed({ succeeded: false, eventType: 'job.run.completed', since: T0 + 15 })).toEqual({
        at: [20],
        total: 1,
      });
      expect(await listed({ succeeded: false }, 1, 1)).toEqual({ at: [20], total: 2 });
      expect(await listed({ succeeded: undefined, eventType: undefined })).toEqual({ at: [40, 30, 20, 10], total: 4 });
    });
  });
});

describe('attemptsOf', () => {
  test("one delivery's rows, oldest first, and none asked of another webhook", async () => {
    await recordEvent(store(), event(1, 'wev_1'));
    const a = deliveryId('wev_1', 'wsu_a');
    const b = deliveryId('wev_1', 'wsu_b');
    for (const [attempt, at] of [
      [2, 20],
      [1, 10],
      [3, 30],
    ] as const)
      await store().deliveryLog.append(
        testSendEntry({ deliveryId: a, eventId: 'wev_1', attempt, requestedAt: T0 + at, isTest: false }),
      );
    await store().deliveryLog.append(
      testSendEntry({ deliveryId: b, webhookId: 'wsu_b', eventId: 'wev_1', requestedAt: T0 }),
    );
    await store().deliveryLog.append(testSendEntry({ requestedAt: T0 + 15 }));

    expect((await store().deliveryLog.attemptsOf('wsu_a', a)).map((row) => row.attempt)).toEqual([1, 2, 3]);
    expect(await store().deliveryLog.attemptsOf('wsu_b', a)).toEqual([]);
    expect(await store().deliveryLog.attemptsOf('wsu_a', 'wdl_none')).toEqual([]);
  });
});

describe('purgeOlderThan', () => {
  const CUTOFF = T0 + 100 * SECOND;
  const none = () => ({ payloadTail: TAIL, deliveries: [] });

  /** Leases the one delivery `id` (at `now`) and records its success at `now`. */
  async function succeed(id: string, now: number): Promise<void> {
    const [claimed] = await store().deliveries.claimDue(claimRequest(now), (candidates) =>
      candidates.filter((c) => c.id === id),
    );
    await store().deliveries.recordAttempts(
      [attemptOf(claimed!, { requestedAt: now, delivery: { state: 'succeeded' } })],
      countFailures,
    );
  }

  beforeEach(async () => {
    // Old and finished (wsu_a's delivery; wsu_b's stays pending), old without deliveries, new and finished, new
    // without deliveries; a test send on each side of the cutoff.
    await recordEvent(store(), event(1, 'wev_old', { runId: 'old', createdAt: T0 }));
    await succeed(deliveryId('wev_old', 'wsu_a'), T0 + SECOND);
    await store().events.record(event(1, 'wev_old_none', { runId: 'old-none', createdAt: T0 }), none);
    await recordEvent(store(), event(1, 'wev_old_all_done', { runId: 'old-all-done', createdAt: T0 }));
    await succeed(deliveryId('wev_old_all_done', 'wsu_a'), T0 + 2 * SECOND);
    await succeed(deliveryId('wev_old_all_done', 'wsu_b'), T0 + 2 * SECOND);
    await store().deliveryLog.append(testSendEntry({ requestedAt: T0 + 3 * SECOND }));
    await recordEvent(store(), event(1, 'wev_new', { runId: 'new', createdAt: T0 + 150 * SECOND }));
    await succeed(deliveryId('wev_new', 'wsu_a'), T0 + 150 * SECOND);
    await store().events.record(event(1, 'wev_new_none', { runId: 'new-none', createdAt: T0 + 150 * SECOND }), none);
    await store().deliveryLog.append(testSendEntry({ requestedAt: T0 + 160 * SECOND }));
  });

  test('deletes old log rows, old finished deliveries and old events left without deliveries, and counts each', async () => {
    expect(await store().deliveryLog.purgeOlderThan(CUTOFF)).toEqual({
      attempts: 4,
      deliveries: 3,
      events: 2,
      hours: 0,
    });
    expect((await store().deliveryLog.list('wsu_a', page())).items.map((item) => item.requestedAt)).toEqual([
      T0 + 160 * SECOND,
      T0 + 150 * SECOND,
    ]);
    expect(await store().deliveries.get('wsu_a', deliveryId('wev_old', 'wsu_a'))).toBeNull();
    expect(await store().deliveryLog.purgeOlderThan(CUTOFF)).toEqual({
      attempts: 0,
      deliveries: 0,
      events: 0,
      hours: 0,
    });
  });

  test('keeps pending deliveries and their events, and newer rows', async () => {
    await store().deliveryLog.purgeOlderThan(CUTOFF);
    expect(await store().deliveries.get('wsu_b', deliveryId('wev_old', 'wsu_b'))).toMatchObject({ state: 'pending' });
    expect(await store().deliveries.get('wsu_a', deliveryId('wev_new', 'wsu_a'))).toMatchObject({ state: 'succeeded' });
    expect(await store().deliveries.countDue(T0 + 200 * SECOND)).toBe(2);
    expect(await store().deliveryLog.attemptsOf('wsu_a', deliveryId('wev_new', 'wsu_a'))).toHaveLength(1);
  });

  test('an event goes once its last delivery has gone, with its webhook or by the purge, and not before', async () => {
    const again = (id: string, runId: string) => store().events.record(event(1, id, { runId }), none);
    // wev_old's finished delivery goes with wsu_a; its pending one to wsu_b still names it.
    expect(await store().webhooks.delete(1, 'wsu_a')).toBe(true);
    expect((await store().deliveryLog.purgeOlderThan(CUTOFF)).events).toBe(2);
    expect(await again('wev_2', 'old')).toEqual({ kind: 'duplicate', eventId: 'wev_old' });
    // Its last delivery goes with wsu_b.
    expect(await store().webhooks.delete(1, 'wsu_b')).toBe(true);
    expect((await store().deliveryLog.purgeOlderThan(CUTOFF)).events).toBe(1);
    expect(await again('wev_3', 'old')).toMatchObject({ kind: 'recorded' });
  });

  test('a purged event is no longer a duplicate; a kept one still is', async () => {
    await store().deliveryLog.purgeOlderThan(CUTOFF);
    const again = (id: string, runId: string) => store().events.record(event(1, id, { runId }), none);
    expect(await again('wev_2', 'old-none')).toMatchObject({ kind: 'recorded' });
    expect(await again('wev_3', 'old-all-done')).toMatchObject({ kind: 'recorded' });
    expect(await again('wev_4', 'old')).toEqual({ kind: 'duplicate', eventId: 'wev_old' });
    expect(await again('wev_5', 'new-none')).toEqual({ kind: 'duplicate', eventId: 'wev_new_none' });
  });
});
