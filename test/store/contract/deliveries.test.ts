// Store contract: leasing due deliveries to a dispatcher, recording what their attempts did, skipping and
// recovering them.
import { chooseClaims, type ClaimRoom } from '../../../service/src/delivery/claim-choice';
import type { AttemptFacts } from '../../../service/src/domain/attempt';
import type { ClaimedDelivery, DueCandidate } from '../../../service/src/domain/delivery';
import { type DispatchState, NEW_DISPATCH_STATE } from '../../../service/src/domain/webhook';
import { REFUSAL, refuseLogRowsContaining, refuseRows } from '../../support/refused-rows';
import {
  accountWithWebhooks,
  attemptOf,
  backend,
  candidatesAt,
  claimAll,
  claimRequest,
  countFailures,
  deliveryId,
  event,
  fanOutToAll,
  headOf,
  ids,
  recordEvent,
  SECOND,
  sortedIds,
  T0,
  TAIL,
  traceparentOf,
  useStore,
} from './fixtures';

const store = useStore();
const LEASE = 30 * SECOND;

beforeEach(async () => {
  await accountWithWebhooks(store(), 1, ['wsu_a', 'wsu_b']);
  await accountWithWebhooks(store(), 2, ['wsu_c']);
});

/** Events wev_1..wev_n of account 1, one second apart from T0: one delivery to each of its webhooks. */
async function eventsOfAccount1(n: number): Promise<void> {
  for (let i = 1; i <= n; i += 1)
    await recordEvent(store(), event(1, `wev_${i}`, { createdAt: T0 + (i - 1) * SECOND }));
}
const d = (eventNumber: number, hook: string) => deliveryId(`wev_${eventNumber}`, hook);
const stateOf = async (hook: string, id: string) => (await store().deliveries.get(hook, id))?.state;
const only = async (claims: Promise<ClaimedDelivery[]>): Promise<ClaimedDelivery> => {
  const claimed = await claims;
  expect(claimed).toHaveLength(1);
  return claimed[0]!;
};

describe('claimDue', () => {
  test('one claim over several events and webhooks gives each delivery its own event and webhook', async () => {
    const tailOf = (eventId: string) => Buffer.from(`,"tail":"${eventId}"}`, 'utf8');
    const types = { wev_1: 'job.run.started', wev_2: 'job.run.errored' } as const;
    for (const [eventId, eventType] of Object.entries(types)) {
      const planned = fanOutToAll(eventId);
      await store().events.record(event(1, eventId, { eventType }), (webhooks) => ({
        ...planned(webhooks),
        payloadTail: tailOf(eventId),
      }));
    }
    const claimed = await store().deliveries.claimDue(claimRequest(T0), (candidates) => candidates);
    expect(
      claimed
        .map((c) => [c.id, c.eventType, c.trace?.traceparent, c.payload.toString(), c.clientUrl, c.sealedSecret])
        .sort(),
    ).toEqual(
      Object.entries(types).flatMap(([eventId, eventType]) =>
        ['wsu_a', 'wsu_b'].map((hook) => [
          deliveryId(eventId, hook),
          eventType,
          traceparentOf(eventId),
          Buffer.concat([headOf(deliveryId(eventId, hook)), tailOf(eventId)]).toString(),
          `http://127.0.0.1:9/${hook}`,
          `v1:sealed-${hook}`,
        ]),
      ),
    );
  });

  test("choose is offered each webhook's oldest due deliveries, at most perWebhook, none not yet due", async () => {
    await eventsOfAccount1(5);
    await recordEvent(store(), event(2, 'wev_z', { createdAt: T0 }));
    const offered = await candidatesAt(store(), T0 + 3 * SECOND, { perWebhook: 2 });
    expect(offered.map((c) => [c.id, c.webhookId, c.accountId, c.dueAt, c.inFlightElsewhere]).sort()).toEqual([
      [d(1, 'wsu_a'), 'wsu_a', 1, T0, 0],
      [d(1, 'wsu_b'), 'wsu_b', 1, T0, 0],
      [d(2, 'wsu_a'), 'wsu_a', 1, T0 + SECOND, 0],
      [d(2, 'wsu_b'), 'wsu_b', 1, T0 + SECOND, 0],
      [deliveryId('wev_z', 'wsu_c'), 'wsu_c', 2, T0, 0],
    ]);
  });

  test("another process's unexpired leases count as in flight elsewhere (PostgreSQL; one process owns a SQLite file)", async () => {
    await eventsOfAccount1(3);
    const now = T0 + 2 * SECOND;
    const firstOf = (hook: string) => (candidates: DueCandidate[]) => candidates.filter((c) => c.id === d(1, hook));
    await store().deliveries.claimDue(claimRequest(now, { owner: 'dispatcher-b' }), firstOf('wsu_a'));
    await store().deliveries.claimDue(claimRequest(now), firstOf('wsu_b'));
    const elsewhere = async (at: number) =>
      Object.fromEntries((await candidatesAt(store(), at)).map((c) => [c.id, c.inFlightElsewhere]));
    const other = backend === 'postgres' ? 1 : 0;
    expect(await elsewhere(now)).toEqual({
      [d(2, 'wsu_a')]: other,
      [d(3, 'wsu_a')]: other,
      [d(2, 'wsu_b')]: 0, // this process's own lease is its own count
      [d(3, 'wsu_b')]: 0,
    });
    // A lease that ran out is nobody's request any more: its delivery is due again and counts nowhere.
    const later = now + LEASE + SECOND;
    expect(Object.values(await elsewhere(later))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  test("another process's results and skips end its requests in flight elsewhere", async () => {
    await eventsOfAccount1(3);
    const now = T0 + 2 * SECOND;
    const byB = await store().deliveries.claimDue(claimRequest(now, { owner: 'dispatcher-b' }), (candidates) =>
      candidates.filter((c) => c.id === d(1, 'wsu_a') || c.id === d(2, 'wsu_a')),
    );
    const first = byB.find((c) => c.id === d(1, 'wsu_a'))!;
    const second = byB.find((c) => c.id === d(2, 'wsu_a'))!;
    const elsewhere = async () =>
      (await candidatesAt(store(), now)).find((c) => c.webhookId === 'wsu_a')!.inFlightElsewhere;
    const other = backend === 'postgres' ? 1 : 0;
    expect(await elsewhere()).toBe(2 * other);
    await store().deliveries.recordAttempts(
      [attemptOf(first, { requestedAt: now, delivery: { state: 'succeeded' } })],
      countFailures,
    );
    expect(await elsewhere()).toBe(other);
    await store().deliveries.skip([second], second.lease, now);
    expect(await elsewhere()).toBe(0);
  });

  test('only what choose returns is leased; the rest stays due', async () => {
    await eventsOfAccount1(2);
    const claimed = await store().deliveries.claimDue(claimRequest(T0 + SECOND), (candidates) =>
      candidates.filter((c) => c.webhookId === 'wsu_b'),
    );
    expect(sortedIds(claimed)).toEqual([d(1, 'wsu_b'), d(2, 'wsu_b')]);
    expect(sortedIds(await candidatesAt(store(), T0 + SECOND))).toEqual([d(1, 'wsu_a'), d(2, 'wsu_a')]);
    expect(await store().deliveries.countDue(T0 + SECOND)).toBe(2);
  });

  test("an excluded webhook's deliveries are not offered", async () => {
    await eventsOfAccount1(2);
    const offered = await candidatesAt(store(), T0 + SECOND, { excludeWebhookIds: ['wsu_a'] });
    expect(sortedIds(offered)).toEqual([d(1, 'wsu_b'), d(2, 'wsu_b')]);
  });

  test('a claimed delivery carries what its attempt needs: whole payload, webhook columns, a lease of its owner', async () => {
    await store().webhooks.changeSecret(1, 'wsu_a', (current) => ({
      sealedSecret: 'v1:new',
      previousSealedSecret: current.sealedSecret,
      previousSecretUntil: T0 + 60 * SECOND,
      updatedAt: T0,
    }));
    const trace = { traceparent: traceparentOf('wev_1'), tracestate: 'vendor=a,other=b' };
    await recordEvent(store(), event(1, 'wev_1', { eventType: 'job.run.errored', trace }));
    const claimed = await only(claimAll(store(), T0, { excludeWebhookIds: ['wsu_b'] }));
    const id = d(1, 'wsu_a');
    expect(claimed).toEqual({
      id,
      lease: expect.stringMatching(/^dispatcher-a/),
      eventId: 'wev_1',
      eventType: 'job.run.errored',
      webhookId: 'wsu_a',
      accountId: 1,
      dueAt: T0,
      maxRequestsPerSecond: null,
      payload: Buffer.concat([headOf(id), TAIL]),
      trace,
      attempts: 0,
      clientUrl: 'http://127.0.0.1:9/wsu_a',
      sealedSecret: 'v1:new',
      previousSealedSecret: 'v1:sealed-wsu_a',
      previousSecretUntil: T0 + 60 * SECOND,
      lastAttempt: false,
      active: true,
      archived: false,
    });
  });

  test("a claim reports its webhook's inactive or archived state", async () => {
    await store().webhooks.update(1, 'wsu_a', (current) => ({ ...current, active: false }));
    await store().webhooks.update(1, 'wsu_b', (current) => ({ ...current, archivedAt: T0, archivedReason: 'gone' }));
    await recordEvent(store(), event(1, 'wev_1'));
    const claimed = await claimAll(store(), T0);
    expect(claimed.map((c) => [c.webhookId, c.active, c.archived]).sort()).toEqual([
      ['wsu_a', false, false],
      ['wsu_b', true, true],
    ]);
  });

  test('a leased delivery is not due again before its lease ends, and is at its end, under a new lease', async () => {
    await recordEvent(store(), event(1, 'wev_1'));
    const first = await only(claimAll(store(), T0, { excludeWebhookIds: ['wsu_b'] }));
    const until = T0 + LEASE;
    expect(await claimAll(store(), until - 1, { excludeWebhookIds: ['wsu_b'] })).toEqual([]);
    expect(await store().deliveries.countDue(until - 1)).toBe(1); // wsu_b's only
    const second = await only(claimAll(store(), until, { excludeWebhookIds: ['wsu_b'] }));
    expect(second.id).toBe(first.id);
    expect(second.dueAt).toBe(until);
    expect(second.lease).not.toBe(first.lease);
  });

  test('two claims in the same moment by two owners never lease one delivery twice', async () => {
    await eventsOfAccount1(3);
    const [x, y] = await Promise.all([
      claimAll(store(), T0 + 2 * SECOND, { owner: 'dispatcher-a' }),
      claimAll(store(), T0 + 2 * SECOND, { owner: 'dispatcher-b' }),
    ]);
    expect([...ids(x!), ...ids(y!)].sort()).toEqual([1, 2, 3].flatMap((n) => [d(n, 'wsu_a'), d(n, 'wsu_b')]).sort());
    for (const claimed of x!) expect(claimed.lease.startsWith('dispatcher-a')).toBe(true);
    for (const claimed of y!) expect(claimed.lease.startsWith('dispatcher-b')).toBe(true);
  });

  test("a webhook with no room and many due deliveries does not hold back another's newer ones", async () => {
    await accountWithWebhooks(store(), 3, ['wsu_busy', 'wsu_idle']);
    await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        store().events.record(event(3, `wev_busy_${i}`, { createdAt: T0 + i }), (webhooks) => ({
          payloadTail: TAIL,
          deliveries: webhooks
            .filter((w) => w.id === 'wsu_busy')
            .map((w) => ({
              id: `wdl_busy_${i}`,
              webhookId: w.id,
              state: 'pending' as const,
              payloadHead: headOf('x'),
            })),
        })),
      ),
    );
    for (let i = 0; i < 3; i += 1)
      await store().events.record(event(3, `wev_idle_${i}`, { createdAt: T0 + SECOND + i }), (webhooks) => ({
        payloadTail: TAIL,
        deliveries: webhooks
          .filter((w) => w.id === 'wsu_idle')
          .map((w) => ({ id: `wdl_idle_${i}`, webhookId: w.id, state: 'pending' as const, payloadHead: headOf('y') })),
      }));
    const room: ClaimRoom = {
      now: T0 + 2 * SECOND,
      total: 256,
      unprovenTotal: 256,
      maxPerWebhook: 16,
      allowed: () => 16,
      standing: () => 'proven',
      inFlight: new Map([['wsu_busy', 16]]),
      inFlightByAccount: new Map(),
    };
    const claimed = await store().deliveries.claimDue(
      claimRequest(T0 + 2 * SECOND, { excludeWebhookIds: ['wsu_busy'] }),
      (candidates) => chooseClaims(candidates, room),
    );
    expect(ids(claimed)).toEqual(['wdl_idle_0', 'wdl_idle_1', 'wdl_idle_2']);

    // With room for four and nothing excluded, the two take turns: the idle one is not behind 120 older rows.
    const turns = await store().deliveries.claimDue(
      claimRequest(T0 + LEASE + 2 * SECOND, { perWebhook: 4 }),
      (candidates) => {
        expect(candidates.filter((c) => c.webhookId === 'wsu_busy')).toHaveLength(4);
        return chooseClaims(candidates, { ...room, total: 4, inFlight: new Map() });
      },
    );
    expect(ids(turns)).toEqual(['wdl_busy_0', 'wdl_idle_0', 'wdl_busy_1', 'wdl_idle_1']);
  });

  test('a rate-limited webhook gets one delivery a claim, none before the next start its slots stored, and its claimed deliveries carry its rate', async () => {
    await store().webhooks.update(1, 'wsu_a', (current) => ({ ...current, maxRequestsPerSecond: 5 }));
    await eventsOfAccount1(3);
    const room = (now: number): ClaimRoom => ({
      now,
      total: 256,
      unprovenTotal: 256,
      maxPerWebhook: 16,
      allowed: () => 16,
      standing: () => 'proven',
      inFlight: new Map(),
      inFlightByAccount: new Map(),
    });
    const claimAt = (now: number) =>
      store().deliveries.claimDue(claimRequest(now), (candidates) => chooseClaims(candidates, room(now)));
    const now = T0 + 5 * SECOND;
    const first = await claimAt(now);
    expect(first.map((c) => [c.id, c.maxRequestsPerSecond]).sort()).toEqual([
      [d(1, 'wsu_a'), 5],
      [d(1, 'wsu_b'), null],
      [d(2, 'wsu_b'), null],
      [d(3, 'wsu_b'), null],
    ]);
    // Its delivery starts: the next start is a fifth of a second on, and no claim before then leases another.
    await store().webhooks.takeStartSlot('wsu_a', now, SECOND / 5);
    expect(await claimAt(now + SECOND / 5 - 1)).toEqual([]);
    expect(ids(await claimAt(now + SECOND / 5))).toEqual([d(2, 'wsu_a')]);
  });
});

describe('recordAttempts', () => {
  beforeEach(async () => {
    await eventsOfAccount1(1);
  });
  const claimA = () => only(claimAll(store(), T0, { excludeWebhookIds: ['wsu_b'] }));

  test('a success is logged and moves the delivery to succeeded, never due again', async () => {
    const claimed = await claimA();
    const result = attemptOf(claimed, { requestedAt: T0 + 1, delivery: { state: 'succeeded' } });
    const [logged] = await store().deliveries.recordAttempts([result], countFailures);
    expect(logged).toEqual({ ...result.log, id: expect.any(Number) });
    expect(await store().deliveries.get('wsu_a', claimed.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(await store().deliveryLog.attemptsOf('wsu_a', claimed.id)).toEqual([logged]);
    expect(await candidatesAt(store(), T0 + 3600 * SECOND, { excludeWebhookIds: ['wsu_b'] })).toEqual([]);
  });

  test('a retry stays pending until nextAttemptAt, then is claimed with its attempts', async () => {
    const claimed = await claimA();
    const retryAt = T0 + 10 * SECOND;
    await store().deliveries.recordAttempts(
      [
        attemptOf(claimed, {
          requestedAt: T0 + 1,
          delivery: { state: 'pending', nextAttemptAt: retryAt },
        }),
      ],
      countFailures,
    );
    expect(await store().deliveries.get('wsu_a', claimed.id)).toMatchObject({
      state: 'pending',
      attempts: 1,
    });
    expect(await claimAll(store(), retryAt - 1, { excludeWebhookIds: ['wsu_b'] })).toEqual([]);
    const again = await only(claimAll(store(), retryAt, { excludeWebhookIds: ['wsu_b'] }));
    expect(again).toMatchObject({ id: claimed.id, attempts: 1, dueAt: retryAt });
  });

  test('a failure that ends the delivery moves it to failed', async () => {
    const claimed = await claimA();
    await store().deliveries.recordAttempts(
      [attemptOf(claimed, { requestedAt: T0 + 1, delivery: { state: 'failed' } })],
      countFailures,
    );
    expect(await store().deliveries.get('wsu_a', claimed.id)).toMatchObject({ state: 'failed', attempts: 1 });
    expect(await store().deliveries.countDue(T0 + 3600 * SECOND)).toBe(1); // wsu_b's only
  });

  test('a late result of an expired lease is logged but does not move the delivery claimed again since', async () => {
    const stale = await claimA();
    const current = await only(claimAll(store(), T0 + LEASE, { excludeWebhookIds: ['wsu_b'] }));
    const [late] = await store().deliveries.recordAttempts(
      [attemptOf(stale, { requestedAt: T0 + LEASE + 1, delivery: { state: 'succeeded' } })],
      countFailures,
    );
    expect(late).not.toBeNull();
    expect(await store().deliveryLog.attemptsOf('wsu_a', stale.id)).toHaveLength(1);
    expect(await store().deliveries.get('wsu_a', stale.id)).toMatchObject({ state: 'pending', attempts: 0 });
    // Still held by the current claim: not due before its lease ends.
    expect(await claimAll(store(), T0 + 2 * LEASE - 1, { excludeWebhookIds: ['wsu_b'] })).toEqual([]);

    await store().deliveries.recordAttempts(
      [attemptOf(current, { requestedAt: T0 + LEASE + 2, delivery: { state: 'failed' } })],
      countFailures,
    );
    expect(await store().deliveries.get('wsu_a', stale.id)).toMatchObject({ state: 'failed', attempts: 1 });
  });

  test("a batch folds each webhook's dispatch state over its results in order, and get shows the result", async () => {
    await recordEvent(store(), event(1, 'wev_2', { createdAt: T0 }));
    await recordEvent(store(), event(1, 'wev_3', { createdAt: T0 }));
    const claimed = await claimAll(store(), T0);
    const byId = new Map(claimed.map((c) => [c.id, c]));
    const calls: Array<{ current: DispatchState; facts: AttemptFacts }> = [];
    const next = (current: DispatchState, facts: AttemptFacts) => {
      calls.push({ current, facts });
      return countFailures(current, facts);
    };
    const results = [
      attemptOf(byId.get(d(1, 'wsu_a'))!, { requestedAt: T0 + 1, delivery: { state: 'failed' } }),
      attemptOf(byId.get(d(1, 'wsu_b'))!, { requestedAt: T0 + 2, delivery: { state: 'succeeded' } }),
      attemptOf(byId.get(d(2, 'wsu_a'))!, { requestedAt: T0 + 3, delivery: { state: 'failed' } }),
      attemptOf(byId.get(d(3, 'wsu_a'))!, { requestedAt: T0 + 4, statusCode: '503', delivery: { state: 'failed' } }),
    ];
    await store().webhooks.get(1, 'wsu_a');
    await store().deliveries.recordAttempts(results, next);

    expect(calls.map((c) => c.facts)).toEqual(results.map((r) => r.facts));
    expect(calls[0]!.current).toEqual(NEW_DISPATCH_STATE);
    expect(calls[1]!.current).toEqual(NEW_DISPATCH_STATE);
    expect(calls[2]!.current).toEqual(countFailures(NEW_DISPATCH_STATE, results[0]!.facts));
    expect(calls[3]!.current).toMatchObject({ consecutiveFailures: 2, failingSince: T0 + 1 });
    expect(await store().webhooks.get(1, 'wsu_a')).toMatchObject({
      httpStatusCode: '503',
      dispatchedAt: T0 + 4,
      consecutiveFailures: 3,
      failingSince: T0 + 1,
      lastFailureAt: T0 + 4,
    });
    expect(await store().webhooks.get(1, 'wsu_b')).toMatchObject({ httpStatusCode: '200', consecutiveFailures: 0 });
  });

  test('a webhook archived by a result of the batch has its other pending deliveries skipped, others untouched', async () => {
    await recordEvent(store(), event(1, 'wev_2', { createdAt: T0 + SECOND }));
    await recordEvent(store(), event(1, 'wev_3', { createdAt: T0 + 2 * SECOND }));
    const [first] = await store().deliveries.claimDue(claimRequest(T0), (candidates) =>
      candidates.filter((c) => c.id === d(1, 'wsu_a')),
    );
    const archive = (current: DispatchState, facts: AttemptFacts): DispatchState => ({
      ...countFailures(current, facts),
      archivedAt: facts.requestedAt,
      archivedReason: 'gone',
    });
    await store().deliveries.recordAttempts(
      [attemptOf(first!, { requestedAt: T0 + 1, verdict: 'gone', delivery: { state: 'failed' } })],
      archive,
    );
    expect(await stateOf('wsu_a', d(1, 'wsu_a'))).toBe('failed');
    expect(await stateOf('wsu_a', d(2, 'wsu_a'))).toBe('skipped');
    expect(await stateOf('wsu_a', d(3, 'wsu_a'))).toBe('skipped');
    expect(await stateOf('wsu_b', d(2, 'wsu_b'))).toBe('pending');
    expect(await store().webhooks.get(1, 'wsu_a')).toMatchObject({ archivedAt: T0 + 1, archivedReason: 'gone' });
    expect(sortedIds(await candidatesAt(store(), T0 + 3600 * SECOND))).toEqual([
      d(1, 'wsu_b'),
      d(2, 'wsu_b'),
      d(3, 'wsu_b'),
    ]);
  });

  test('an attempt that ran beside the one that archived, its result in the same batch, leaves its delivery skipped', async () => {
    await recordEvent(store(), event(1, 'wev_2', { createdAt: T0 + SECOND }));
    const both = await store().deliveries.claimDue(claimRequest(2 * SECOND + T0), (candidates) =>
      candidates.filter((c) => c.webhookId === 'wsu_a'),
    );
    expect(sortedIds(both)).toEqual([d(1, 'wsu_a'), d(2, 'wsu_a')]);
    const archive = (current: DispatchState, facts: AttemptFacts): DispatchState => ({
      ...countFailures(current, facts),
      archivedAt: current.archivedAt ?? facts.requestedAt,
      archivedReason: 'gone',
    });
    const byId = new Map(both.map((c) => [c.id, c]));
    const logged = await store().deliveries.recordAttempts(
      [
        attemptOf(byId.get(d(1, 'wsu_a'))!, { requestedAt: T0 + 1, verdict: 'gone', delivery: { state: 'failed' } }),
        attemptOf(byId.get(d(2, 'wsu_a'))!, { requestedAt: T0 + 2, verdict: 'gone', delivery: { state: 'failed' } }),
      ],
      archive,
    );
    expect(logged.every((row) => row !== null)).toBe(true);
    expect(await stateOf('wsu_a', d(1, 'wsu_a'))).toBe('failed');
    expect(await stateOf('wsu_a', d(2, 'wsu_a'))).toBe('skipped');
  });

  test('a result that comes after another batch archived its webhook leaves its delivery skipped', async () => {
    await recordEvent(store(), event(1, 'wev_2', { createdAt: T0 + SECOND }));
    const both = await store().deliveries.claimDue(claimRequest(2 * SECOND + T0), (candidates) =>
      candidates.filter((c) => c.webhookId === 'wsu_a'),
    );
    const byId = new Map(both.map((c) => [c.id, c]));
    const archive = (current: DispatchState, facts: AttemptFacts): DispatchState => ({
      ...countFailures(current, facts),
      archivedAt: current.archivedAt ?? facts.requestedAt,
      archivedReason: 'gone',
    });
    await store().deliveries.recordAttempts(
      [attemptOf(byId.get(d(1, 'wsu_a'))!, { requestedAt: T0 + 1, verdict: 'gone', delivery: { state: 'failed' } })],
      archive,
    );
    expect(await stateOf('wsu_a', d(2, 'wsu_a'))).toBe('skipped');
    // The other request was in flight meanwhile; its answer comes in the next batch.
    await store().deliveries.recordAttempts(
      [attemptOf(byId.get(d(2, 'wsu_a'))!, { requestedAt: T0 + 2, delivery: { state: 'succeeded' } })],
      countFailures,
    );
    expect(await stateOf('wsu_a', d(2, 'wsu_a'))).toBe('skipped');
  });

  test('a result whose webhook was deleted meanwhile is null; the rest of the batch is recorded', async () => {
    const claimed = await claimAll(store(), T0);
    const a = claimed.find((c) => c.webhookId === 'wsu_a')!;
    const b = claimed.find((c) => c.webhookId === 'wsu_b')!;
    await store().webhooks.delete(1, 'wsu_a');
    const logged = await store().deliveries.recordAttempts(
      [
        attemptOf(a, { requestedAt: T0 + 1, delivery: { state: 'succeeded' } }),
        attemptOf(b, { requestedAt: T0 + 2, delivery: { state: 'succeeded' } }),
      ],
      countFailures,
    );
    expect(logged[0]).toBeNull();
    expect(logged[1]).toMatchObject({ deliveryId: b.id, success: true });
    expect(await stateOf('wsu_b', b.id)).toBe('succeeded');
    expect(await store().deliveries.get('wsu_a', a.id)).toBeNull();
  });

  test('a result whose log row the database refuses costs the batch nothing: it is kept without the answer', async () => {
    await recordEvent(store(), event(1, 'wev_2', { createdAt: T0 }));
    await refuseLogRowsContaining(store.where(), 'refuse me');
    const claimed = await claimAll(store(), T0);
    expect(claimed).toHaveLength(4);
    const [poisoned, ...neighbours] = claimed;
    const results = [
      { ...attemptOf(poisoned!, { requestedAt: T0 + 1, delivery: { state: 'succeeded' } }) },
      ...neighbours.map((c, i) => attemptOf(c, { requestedAt: T0 + 2 + i, delivery: { state: 'failed' } })),
    ];
    results[0]!.log = { ...results[0]!.log, responseExcerpt: 'please refuse me', responseHeaders: { a: 'b' } };
    const logged = await store().deliveries.recordAttempts(results, countFailures);

    expect(logged.map((row) => row?.deliveryId)).toEqual(claimed.map((c) => c.id));
    expect(logged[0]).toMatchObject({ success: true, statusCode: '200', responseExcerpt: '', responseHeaders: {} });
    expect(logged[0]!.error).toContain('The answer could not be stored, so its body and headers are left out');
    expect(logged[0]!.error).toContain(REFUSAL);
    // The refused attempt counts as what it was: the delivery succeeded with one attempt, never to be sent again.
    expect(await store().deliveries.get(poisoned!.webhookId, poisoned!.id)).toMatchObject({
      state: 'succeeded',
      attempts: 1,
    });
    for (const c of claimed) expect(await store().deliveryLog.attemptsOf(c.webhookId, c.id)).toHaveLength(1);
    for (const c of neighbours) expect(await stateOf(c.webhookId, c.id)).toBe('failed');
    expect(await store().deliveries.countDue(T0 + 3600 * SECOND)).toBe(0);
  });

  test('a NUL in a log row, which the sender never lets through, is no reason to lose the batch either', async () => {
    const claimed = await claimAll(store(), T0);
    const results = claimed.map((c, i) => attemptOf(c, { requestedAt: T0 + 1 + i, delivery: { state: 'succeeded' } }));
    results[0]!.log = { ...results[0]!.log, responseExcerpt: 'before\u0000after' };
    const logged = await store().deliveries.recordAttempts(results, countFailures);
    // SQLite stores it as given; PostgreSQL's text refuses U+0000, and the attempt is kept without the answer.
    expect(logged[0]!.responseExcerpt).toBe(backend === 'sqlite' ? 'before\u0000after' : '');
    expect(logged[1]).toMatchObject({ deliveryId: claimed[1]!.id, responseExcerpt: 'answer 200' });
    for (const c of claimed) expect(await stateOf(c.webhookId, c.id)).toBe('succeeded');
  });

  test('two callers at once: a result refused even without its answer fails only its own caller', async () => {
    await recordEvent(store(), event(1, 'wev_2', { createdAt: T0 }));
    const claimed = await claimAll(store(), T0);
    const [refused, ...others] = claimed;
    // Refused by its delivery, whatever it holds: its answer left out does not save it.
    await refuseRows(store.where(), { table: 'delivery_attempts', when: `NEW.delivery_id = '${refused!.id}'` });
    const succeeded = (c: (typeof claimed)[number], i: number) =>
      attemptOf(c, { requestedAt: T0 + 1 + i, delivery: { state: 'succeeded' } });
    const [first, second] = await Promise.allSettled([
      store().deliveries.recordAttempts([succeeded(refused!, 0), succeeded(others[0]!, 1)], countFailures),
      store().deliveries.recordAttempts(
        others.slice(1).map((c, i) => succeeded(c, i + 2)),
        countFailures,
      ),
    ]);
    expect(first.status).toBe('rejected');
    expect(String((first as PromiseRejectedResult).reason)).toContain(REFUSAL);
    expect(second.status).toBe('fulfilled');
    // Every other result is recorded, the first caller's neighbour included; the refused one waits for its lease.
    for (const c of others) expect(await stateOf(c.webhookId, c.id)).toBe('succeeded');
    expect(await stateOf(refused!.webhookId, refused!.id)).toBe('pending');
  });

  test('an empty batch resolves with nothing', async () => {
    const next = jest.fn(countFailures);
    expect(await store().deliveries.recordAttempts([], next)).toEqual([]);
    expect(next).not.toHaveBeenCalled();
  });

  test('a manual redelivery (no lease) of a finished delivery: a success marks it succeeded, a failure leaves its state', async () => {
    const claimed = await claimA();
    await store().deliveries.recordAttempts(
      [attemptOf(claimed, { requestedAt: T0 + 1, delivery: { state: 'failed' } })],
      countFailures,
    );
    const finished = { ...claimed, attempts: 1 };
    await store().deliveries.recordAttempts(
      [attemptOf(finished, { requestedAt: T0 + 2, lease: null, delivery: { state: 'unchanged' } })],
      countFailures,
    );
    expect(await store().deliveries.get('wsu_a', claimed.id)).toMatchObject({ state: 'failed', attempts: 2 });
    await store().deliveries.recordAttempts(
      [attemptOf({ ...claimed, attempts: 2 }, { requestedAt: T0 + 3, lease: null, delivery: { state: 'succeeded' } })],
      countFailures,
    );
    expect(await store().deliveries.get('wsu_a', claimed.id)).toMatchObject({ state: 'succeeded', attempts: 3 });
    expect((await store().deliveryLog.attemptsOf('wsu_a', claimed.id)).map((a) => a.attempt)).toEqual([1, 2, 3]);
  });
});

describe('skip, get, countDue and recoverFailed', () => {
  test("skip moves only the rows that still hold the claim's lease", async () => {
    await eventsOfAccount1(2);
    const claimed = await claimAll(store(), T0 + SECOND, { excludeWebhookIds: ['wsu_b'] });
    const [one, two] = [...claimed].sort((x, y) => (x.id < y.id ? -1 : 1));
    await store().deliveries.skip([one!], 'dispatcher-a/not-this-claim', T0 + 2 * SECOND);
    expect(await stateOf('wsu_a', one!.id)).toBe('pending');
    await store().deliveries.skip([one!], one!.lease, T0 + 2 * SECOND);
    expect(await stateOf('wsu_a', one!.id)).toBe('skipped');
    expect(await stateOf('wsu_a', two!.id)).toBe('pending');
    await store().deliveries.skip([], one!.lease, T0 + 2 * SECOND);
  });

  test('skip of an expired lease claimed again since changes nothing', async () => {
    await eventsOfAccount1(1);
    const stale = await only(claimAll(store(), T0, { excludeWebhookIds: ['wsu_b'] }));
    await only(claimAll(store(), T0 + LEASE, { excludeWebhookIds: ['wsu_b'] }));
    await store().deliveries.skip([stale], stale.lease, T0 + LEASE + 1);
    expect(await stateOf('wsu_a', stale.id)).toBe('pending');
  });

  test("get carries its event's trace context, as a redelivery continues it", async () => {
    await eventsOfAccount1(1);
    expect((await store().deliveries.get('wsu_a', d(1, 'wsu_a')))?.trace).toEqual({
      traceparent: traceparentOf('wev_1'),
      tracestate: null,
    });
  });

  test('get is null for an unknown delivery and for one asked of another webhook', async () => {
    await eventsOfAccount1(1);
    expect(await store().deliveries.get('wsu_a', 'wdl_none')).toBeNull();
    expect(await store().deliveries.get('wsu_b', d(1, 'wsu_a'))).toBeNull();
  });

  test('countDue counts pending deliveries due by now and not leased', async () => {
    await eventsOfAccount1(3);
    expect(await store().deliveries.countDue(T0 - 1)).toBe(0);
    expect(await store().deliveries.countDue(T0 + SECOND)).toBe(4);
    await store().deliveries.claimDue(claimRequest(T0 + SECOND), (candidates) =>
      candidates.filter((c) => c.id === d(1, 'wsu_a')),
    );
    expect(await store().deliveries.countDue(T0 + SECOND)).toBe(3);
    expect(await store().deliveries.countDue(T0 + 2 * SECOND)).toBe(5);
  });

  test("recoverFailed makes the webhook's failed deliveries created in [since, until) due again, oldest first, for one last attempt", async () => {
    await eventsOfAccount1(4);
    const claimed = await claimAll(store(), T0 + 3 * SECOND);
    const outcome = (c: ClaimedDelivery) =>
      c.id === d(3, 'wsu_a') ? ({ state: 'succeeded' } as const) : ({ state: 'failed' } as const);
    await store().deliveries.recordAttempts(
      claimed.map((c) => attemptOf(c, { requestedAt: T0 + 3 * SECOND, delivery: outcome(c) })),
      countFailures,
    );
    const now = T0 + 100 * SECOND;
    // Events 1, 2 and 3 are in the window; 3 succeeded, 4 is after it, and wsu_b's are another webhook's.
    expect(await store().deliveries.recoverFailed('wsu_a', { since: T0, until: T0 + 3 * SECOND }, now)).toBe(2);
    expect(await stateOf('wsu_a', d(4, 'wsu_a'))).toBe('failed');
    expect(await stateOf('wsu_b', d(1, 'wsu_b'))).toBe('failed');
    expect(await stateOf('wsu_a', d(3, 'wsu_a'))).toBe('succeeded');

    const offered = await candidatesAt(store(), now + SECOND);
    expect(sortedIds(offered)).toEqual([d(1, 'wsu_a'), d(2, 'wsu_a')]);
    const [older, newer] = [...offered].sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(older!.dueAt).toBeGreaterThanOrEqual(now);
    expect(older!.dueAt).toBeLessThan(newer!.dueAt);
    const again = await claimAll(store(), now + SECOND);
    expect(again.map((c) => [c.id, c.lastAttempt, c.attempts]).sort()).toEqual([
      [d(1, 'wsu_a'), true, 1],
      [d(2, 'wsu_a'), true, 1],
    ]);
    expect(await store().deliveries.recoverFailed('wsu_a', { since: T0, until: T0 + 3 * SECOND }, now)).toBe(0);
  });
});
