// Store contract: the hourly rollup of the delivery log. Each batch of results adds its attempts (by outcome and
// duration) and the deliveries it finished to its webhook's hour, and the rollup always equals what the log holds;
// it is read per webhook, per account and for every account, and purged with the log.
import { HOUR_MICROS, type StatsHour } from '../../../service/src/domain/delivery-stats';
import type { ClaimedDelivery } from '../../../service/src/domain/delivery';
import type { Store } from '../../../service/src/store/store';
import {
  accountWithWebhooks,
  attemptOf,
  type AttemptOutcome,
  claimAll,
  countFailures,
  deliveryId,
  event,
  recordEvent,
  SECOND,
  T0,
  useStore,
} from './fixtures';

const store = useStore();
/** T0 is an hour's start. */
const H0 = T0;
const H1 = T0 + HOUR_MICROS;
const WEEK = { since: 0, until: Number.MAX_SAFE_INTEGER };

beforeEach(async () => {
  await accountWithWebhooks(store(), 1, ['wsu_a', 'wsu_b']);
  await accountWithWebhooks(store(), 2, ['wsu_c']);
});

async function record(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
  await store().deliveries.recordAttempts([attemptOf(claimed, outcome)], countFailures);
}

/** What the log holds for `webhookId`, counted the way the rollup counts it, per hour. */
async function countedFromLog(s: Store, webhookId: string): Promise<Map<number, { ok: number; failed: number }>> {
  const { items } = await s.deliveryLog.list(webhookId, { offset: 0, limit: 1000 });
  const hours = new Map<number, { ok: number; failed: number }>();
  for (const row of items.filter((r) => !r.isTest)) {
    const hour = Math.floor(row.requestedAt / HOUR_MICROS) * HOUR_MICROS;
    const counts = hours.get(hour) ?? { ok: 0, failed: 0 };
    if (row.success) counts.ok += 1;
    else counts.failed += 1;
    hours.set(hour, counts);
  }
  return hours;
}

const hour = (webhookId: string, at: number, counts: Partial<StatsHour>): StatsHour => ({
  webhookId,
  hour: at,
  attemptsSucceeded: 0,
  attemptsFailed: 0,
  deliveriesSucceeded: 0,
  deliveriesFailed: 0,
  durations: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  ...counts,
});

describe('recordAttempts adds to the rollup', () => {
  test("attempts by outcome and duration, and the deliveries they finished, in each attempt's hour", async () => {
    await recordEvent(store(), event(1, 'wev_1', { createdAt: T0 }));
    await recordEvent(store(), event(1, 'wev_2', { runId: 'run-2', createdAt: T0 }));
    const first = await claimAll(store(), T0);
    const a1 = first.find((c) => c.id === deliveryId('wev_1', 'wsu_a'))!;
    const a2 = first.find((c) => c.id === deliveryId('wev_2', 'wsu_a'))!;
    const b1 = first.find((c) => c.id === deliveryId('wev_1', 'wsu_b'))!;
    // wsu_a: one success (3 ms) and a failure that will be retried (700 ms) in H0, then the retry fails for good in
    // H1 (12 s: the last bucket). wsu_b: a success of 30 ms in H0.
    await store().deliveries.recordAttempts(
      [
        attemptOf(a1, { requestedAt: H0 + SECOND, durationMs: 3, delivery: { state: 'succeeded' } }),
        attemptOf(a2, {
          requestedAt: H0 + 2 * SECOND,
          durationMs: 700,
          delivery: { state: 'pending', nextAttemptAt: H1 + SECOND },
        }),
        attemptOf(b1, { requestedAt: H0 + 3 * SECOND, durationMs: 30, delivery: { state: 'succeeded' } }),
      ],
      countFailures,
    );
    const retry = (await claimAll(store(), H1 + SECOND)).find((c) => c.id === a2.id);
    await record(retry!, { requestedAt: H1 + 2 * SECOND, durationMs: 12_000, delivery: { state: 'failed' } });

    const ofA = await store().deliveryLog.hoursOfWebhook('wsu_a', WEEK);
    expect(ofA).toEqual([
      hour('wsu_a', H0, {
        attemptsSucceeded: 1,
        attemptsFailed: 1,
        deliveriesSucceeded: 1,
        durations: [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
      }),
      hour('wsu_a', H1, { attemptsFailed: 1, deliveriesFailed: 1, durations: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] }),
    ]);
    // The rollup is the log, counted.
    const fromLog = await countedFromLog(store(), 'wsu_a');
    expect(ofA.map((h) => [h.hour, { ok: h.attemptsSucceeded, failed: h.attemptsFailed }])).toEqual(
      [...fromLog].sort(([x], [y]) => x - y),
    );
    expect(await store().deliveryLog.hoursOfWebhook('wsu_a', { since: H1, until: H1 + HOUR_MICROS })).toEqual([ofA[1]]);

    // The account's hours add its webhooks up; the other account's are its own; null adds up every account's.
    expect(await store().deliveryLog.hoursOfAccount(1, WEEK)).toEqual([
      hour('', H0, {
        attemptsSucceeded: 2,
        attemptsFailed: 1,
        deliveriesSucceeded: 2,
        durations: [1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
      }),
      hour('', H1, { attemptsFailed: 1, deliveriesFailed: 1, durations: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] }),
    ]);
    expect(await store().deliveryLog.hoursOfAccount(2, WEEK)).toEqual([]);
    expect((await store().deliveryLog.hoursOfAccount(null, WEEK)).map((h) => h.attemptsFailed)).toEqual([1, 1]);
    // Per webhook: its totals over the window, and its attempts per hour.
    expect(await store().deliveryLog.totalsByWebhook(1, { since: H0, until: H1 + HOUR_MICROS })).toEqual(
      expect.arrayContaining([
        hour('wsu_a', H0, {
          attemptsSucceeded: 1,
          attemptsFailed: 2,
          deliveriesSucceeded: 1,
          deliveriesFailed: 1,
          durations: [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1],
        }),
        hour('wsu_b', H0, {
          attemptsSucceeded: 1,
          deliveriesSucceeded: 1,
          durations: [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
        }),
      ]),
    );
    expect(await store().deliveryLog.totalsByWebhook(1, { since: H1, until: H1 + HOUR_MICROS })).toHaveLength(1);
    const trends = await store().deliveryLog.trendsByWebhook(1, WEEK);
    expect(trends.sort((x, y) => x.webhookId.localeCompare(y.webhookId) || x.hour - y.hour)).toEqual([
      { webhookId: 'wsu_a', hour: H0, succeeded: 1, failed: 1 },
      { webhookId: 'wsu_a', hour: H1, succeeded: 0, failed: 1 },
      { webhookId: 'wsu_b', hour: H0, succeeded: 1, failed: 0 },
    ]);
  });

  test('a result whose lease was taken over counts its attempt, not the delivery: the attempt that finishes it does', async () => {
    await recordEvent(store(), event(2, 'wev_1', { createdAt: T0 }));
    const [stale] = await claimAll(store(), T0);
    // The lease runs out and another claim takes the delivery; the first claim's result comes late.
    const [current] = await claimAll(store(), T0 + 31 * SECOND);
    await record(stale!, { requestedAt: T0 + 40 * SECOND, delivery: { state: 'succeeded' } });
    await record(current!, { requestedAt: T0 + 41 * SECOND, delivery: { state: 'succeeded' } });
    expect(await store().deliveryLog.hoursOfWebhook('wsu_c', WEEK)).toEqual([
      hour('wsu_c', H0, { attemptsSucceeded: 2, deliveriesSucceeded: 1, durations: [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }),
    ]);
    expect(await store().deliveries.get('wsu_c', deliveryId('wev_1', 'wsu_c'))).toMatchObject({ state: 'succeeded' });
  });

  test("a person's redelivery counts as an attempt but finishes no delivery a second time", async () => {
    await recordEvent(store(), event(2, 'wev_1', { createdAt: T0 }));
    const [claimed] = await claimAll(store(), T0);
    await record(claimed!, { requestedAt: T0 + SECOND, delivery: { state: 'failed' } });
    await record(claimed!, { requestedAt: T0 + 2 * SECOND, delivery: { state: 'succeeded' }, lease: null });
    expect(await store().deliveryLog.hoursOfWebhook('wsu_c', WEEK)).toEqual([
      hour('wsu_c', H0, {
        attemptsSucceeded: 1,
        attemptsFailed: 1,
        deliveriesFailed: 1,
        durations: [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      }),
    ]);
  });

  test('test sends are not counted; a deleted webhook takes its hours along', async () => {
    await store().deliveryLog.append({
      deliveryId: null,
      webhookId: 'wsu_c',
      eventId: 'wev_test',
      eventType: 'job.run.completed',
      attempt: 1,
      requestedAt: T0,
      durationMs: 4,
      statusCode: '200',
      error: null,
      success: true,
      responseExcerpt: '',
      responseHeaders: {},
      isTest: true,
    });
    expect(await store().deliveryLog.hoursOfWebhook('wsu_c', WEEK)).toEqual([]);

    await recordEvent(store(), event(2, 'wev_1', { createdAt: T0 }));
    const [claimed] = await claimAll(store(), T0);
    await record(claimed!, { requestedAt: T0 + SECOND, delivery: { state: 'succeeded' } });
    expect(await store().deliveryLog.hoursOfAccount(2, WEEK)).toHaveLength(1);
    await store().webhooks.delete(2, 'wsu_c');
    expect(await store().deliveryLog.hoursOfAccount(2, WEEK)).toEqual([]);
  });
});

test('purgeOlderThan deletes the hours that ended by the cutoff and keeps the one it falls in', async () => {
  await recordEvent(store(), event(2, 'wev_1', { createdAt: T0 }));
  await recordEvent(store(), event(2, 'wev_2', { runId: 'run-2', createdAt: T0 }));
  const [first, second] = await claimAll(store(), T0);
  await record(first!, { requestedAt: H0 + SECOND, delivery: { state: 'succeeded' } });
  await record(second!, { requestedAt: H1 + SECOND, delivery: { state: 'succeeded' } });

  // The cutoff inside H1: H0 ended before it and goes; H1 stays.
  const purged = await store().deliveryLog.purgeOlderThan(H1 + 30 * 60 * SECOND);
  expect(purged.hours).toBe(1);
  expect((await store().deliveryLog.hoursOfWebhook('wsu_c', WEEK)).map((h) => h.hour)).toEqual([H1]);
  // A cutoff at H1's very end takes it too.
  expect((await store().deliveryLog.purgeOlderThan(H1 + 2 * HOUR_MICROS)).hours).toBe(1);
  expect(await store().deliveryLog.hoursOfWebhook('wsu_c', WEEK)).toEqual([]);
});

test("backlogOf counts each of the account's webhooks' pending deliveries, and those due", async () => {
  await recordEvent(store(), event(1, 'wev_1', { createdAt: T0 }));
  await recordEvent(store(), event(1, 'wev_2', { runId: 'run-2', createdAt: T0 + SECOND }));
  await recordEvent(store(), event(2, 'wev_3', { runId: 'run-3', createdAt: T0 }));
  // wsu_a's first delivery fails and waits for a retry in an hour; the other three stay due.
  const claimed = await claimAll(store(), T0 + SECOND, { perWebhook: 1 });
  const a1 = claimed.find((c) => c.id === deliveryId('wev_1', 'wsu_a'))!;
  await record(a1, { requestedAt: T0 + SECOND, delivery: { state: 'pending', nextAttemptAt: H1 } });
  const backlog = await store().deliveries.backlogOf(1, T0 + 2 * SECOND);
  expect(backlog.sort((x, y) => x.webhookId.localeCompare(y.webhookId))).toEqual([
    { webhookId: 'wsu_a', pending: 2, due: 1 },
    // wsu_b's first delivery is leased (due only when its lease ends), its second is due.
    { webhookId: 'wsu_b', pending: 2, due: 1 },
  ]);
  expect(await store().deliveries.backlogOf(3, T0)).toEqual([]);
});
