// The plan of a batch of attempt results, as plain data: what both backends write (store/results-plan.ts).
import type { AttemptFacts, AttemptResult } from '../../service/src/domain/attempt';
import type { EndpointHealth } from '../../service/src/domain/endpoint-health';
import { type DispatchState, NEW_DISPATCH_STATE } from '../../service/src/domain/webhook';
import { endOf, loggedAttempts, planResults, rollupOf } from '../../service/src/store/results-plan';

const T0 = 1_800_000_000_000_000;
const STATE: DispatchState = NEW_DISPATCH_STATE;

function result(webhookId: string, n: number, change: Partial<AttemptResult> = {}): AttemptResult {
  const statusCode = change.facts?.statusCode ?? '500';
  return {
    log: {
      deliveryId: `wdl_${webhookId}_${n}`,
      webhookId,
      eventId: `wev_${n}`,
      eventType: 'job.run.completed',
      attempt: 1,
      requestedAt: T0 + n,
      durationMs: 2,
      statusCode,
      error: null,
      success: false,
      responseExcerpt: '',
      responseHeaders: {},
      isTest: false,
    },
    facts: { requestedAt: T0 + n, statusCode, verdict: 'failed', exhausted: false, manual: false },
    delivery: { state: 'pending', nextAttemptAt: T0 + 1000 },
    lease: 'owner/1',
    ...change,
  };
}

/** Counts failures; archives at the third in a row. */
const next = (current: DispatchState, facts: AttemptFacts): DispatchState => {
  const consecutiveFailures = current.consecutiveFailures + 1;
  return {
    ...current,
    httpStatusCode: facts.statusCode,
    consecutiveFailures,
    archivedAt: current.archivedAt ?? (consecutiveFailures >= 3 ? facts.requestedAt : null),
    archivedReason: current.archivedReason ?? (consecutiveFailures >= 3 ? 'failures' : null),
  };
};

test("each webhook's state is folded over its results in order, from the state the transaction read", () => {
  const results = [result('a', 1), result('b', 2), result('a', 3)];
  const plan = planResults(
    results,
    new Map([
      ['a', STATE],
      ['b', { ...STATE, consecutiveFailures: 5 }],
    ]),
    next,
  );
  expect(plan.dispatchStates.get('a')).toMatchObject({ consecutiveFailures: 2, archivedAt: null });
  expect(plan.dispatchStates.get('b')).toMatchObject({ consecutiveFailures: 6 });
  expect(plan.logged.map(({ index }) => index)).toEqual([0, 1, 2]);
  expect(plan.leasedMoves.map((m) => [m.deliveryId, m.state, m.nextAttemptAt, m.now])).toEqual([
    ['wdl_a_1', 'pending', T0 + 1000, endOf(results[0]!.log)],
    ['wdl_b_2', 'pending', T0 + 1000, T0 + 2 + 2000],
    ['wdl_a_3', 'pending', T0 + 1000, T0 + 3 + 2000],
  ]);
});

test('the result that archives a webhook is named once with the time its attempt ended', () => {
  const results = [1, 2, 3, 4].map((n) => result('a', n, { delivery: { state: 'failed' } }));
  const plan = planResults(results, new Map([['a', STATE]]), next);
  expect(plan.archived).toEqual([{ webhookId: 'a', at: endOf(results[2]!.log) }]);
  // The fourth attempt ran beside the one that archived: skipped, as the archive would have skipped it had its
  // result come in a later batch; its attempt is logged, and the rollup counts no delivery for it.
  expect(plan.leasedMoves.map((m) => [m.state, m.nextAttemptAt])).toEqual([
    ...Array(3).fill(['failed', null]),
    ['skipped', null],
  ]);
  expect(plan.logged).toHaveLength(4);
  const hours = rollupOf(plan.rollup, () => true);
  expect(hours.reduce((n, h) => n + h.deliveriesFailed, 0)).toBe(3);
  expect(hours.reduce((n, h) => n + h.attemptsFailed, 0)).toBe(4);
});

test('a result whose webhook was archived before it, by a retry left or a success alike, skips its delivery', () => {
  const archived = { ...STATE, archivedAt: T0, archivedReason: 'gone' };
  const results = [
    result('a', 1),
    result('a', 2, { delivery: { state: 'succeeded' }, log: { ...result('a', 2).log, success: true } }),
  ];
  const plan = planResults(results, new Map([['a', archived]]), next);
  expect(plan.leasedMoves.map((m) => [m.deliveryId, m.state, m.nextAttemptAt])).toEqual([
    ['wdl_a_1', 'skipped', null],
    ['wdl_a_2', 'skipped', null],
  ]);
});

test('a webhook already archived is not archived again', () => {
  const plan = planResults([result('a', 1)], new Map([['a', { ...STATE, archivedAt: T0 }]]), next);
  expect(plan.archived).toEqual([]);
});

test("a result whose webhook is gone writes nothing, and is null among the batch's log rows", () => {
  const results = [result('gone', 1), result('a', 2)];
  const plan = planResults(results, new Map([['a', STATE]]), next);
  expect(plan.logged.map(({ index }) => index)).toEqual([1]);
  expect([...plan.dispatchStates.keys()]).toEqual(['a']);
  expect(plan.leasedMoves.map((m) => m.deliveryId)).toEqual(['wdl_a_2']);
  const logged = loggedAttempts(results, plan, [77]);
  expect(logged[0]).toBeNull();
  expect(logged[1]).toEqual({ ...results[1]!.log, id: 77 });
});

test("a person's redelivery moves a finished delivery: a success marks it, a failure leaves its state", () => {
  const results = [
    result('a', 1, { lease: null, delivery: { state: 'succeeded' } }),
    result('a', 2, { lease: null, delivery: { state: 'unchanged' } }),
  ];
  const plan = planResults(results, new Map([['a', STATE]]), next);
  expect(plan.leasedMoves).toEqual([]);
  expect(plan.finishedMoves.map((m) => [m.deliveryId, m.state, m.attempts])).toEqual([
    ['wdl_a_1', 'succeeded', 1],
    ['wdl_a_2', null, 1],
  ]);
});

test('a leased result must move its delivery on', () => {
  expect(() =>
    planResults([result('a', 1, { delivery: { state: 'unchanged' } })], new Map([['a', STATE]]), next),
  ).toThrow('a leased delivery always moves on');
});

test("the health changes that waited for their results come in the batch's order, none of a deleted webhook", () => {
  const first = (h: EndpointHealth) => ({ ...h, limit: 3 });
  const second = (h: EndpointHealth) => ({ ...h, limit: 4 });
  const gone = (h: EndpointHealth) => ({ ...h, limit: 5 });
  const plan = planResults(
    [
      result('wsu_a', 1, { endpointHealthChange: first }),
      result('wsu_b', 2),
      result('wsu_gone', 3, { endpointHealthChange: gone }),
      result('wsu_a', 4, { endpointHealthChange: second }),
    ],
    new Map([
      ['wsu_a', STATE],
      ['wsu_b', STATE],
    ]),
    next,
  );
  expect(plan.healthChanges).toEqual([
    ['wsu_a', first],
    ['wsu_a', second],
  ]);
});

describe('a result from an endpoint the webhook no longer has (moved by a PUT while the request was out)', () => {
  const urls = new Map([['a', 'http://127.0.0.1:9/now']]);
  const fromFormer = (n: number, change: Partial<AttemptResult> = {}) =>
    result('a', n, { sentTo: 'http://127.0.0.1:9/before', ...change });

  test('is logged and counted as an attempt, and changes nothing of the webhook', () => {
    const gone = fromFormer(1, {
      facts: { requestedAt: T0 + 1, statusCode: '410', verdict: 'gone', exhausted: true, manual: false },
      delivery: { state: 'failed' },
      endpointHealthChange: (health: EndpointHealth) => health,
    });
    const plan = planResults([gone, gone, gone], new Map([['a', STATE]]), next, new Set(), urls);
    expect(plan.logged).toHaveLength(3);
    expect(plan.dispatchStates.size).toBe(0);
    expect(plan.archived).toEqual([]);
    expect(plan.healthChanges).toEqual([]);
    expect(plan.operational).toEqual([]);
    expect(plan.rollup.map((entry) => [entry.success, entry.finishes])).toEqual([
      [false, null],
      [false, null],
      [false, null],
    ]);
  });

  test('its delivery is due at once for the endpoint the webhook has now, unless it succeeded', () => {
    const failed = fromFormer(1, { delivery: { state: 'failed' } });
    const retried = fromFormer(2, { delivery: { state: 'pending', nextAttemptAt: T0 + 60_000_000 } });
    const succeeded = fromFormer(3, {
      facts: { requestedAt: T0 + 3, statusCode: '200', verdict: 'succeeded', exhausted: false, manual: false },
      delivery: { state: 'succeeded' },
    });
    const plan = planResults([failed, retried, succeeded], new Map([['a', STATE]]), next, new Set(), urls);
    expect(plan.leasedMoves.map((m) => [m.state, m.nextAttemptAt === m.now])).toEqual([
      ['pending', true],
      ['pending', true],
      ['succeeded', false],
    ]);
    // A webhook archived meanwhile skips it, as every delivery not finished.
    const archived = planResults([failed], new Map([['a', { ...STATE, archivedAt: T0 }]]), next, new Set(), urls);
    expect(archived.leasedMoves.map((m) => m.state)).toEqual(['skipped']);
  });

  test("a result sent to the webhook's URL as it is now folds as any other", () => {
    const plan = planResults(
      [result('a', 1, { sentTo: 'http://127.0.0.1:9/now' })],
      new Map([['a', STATE]]),
      next,
      new Set(),
      urls,
    );
    expect(plan.dispatchStates.get('a')).toMatchObject({ consecutiveFailures: 1 });
  });
});
