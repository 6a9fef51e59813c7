// The operational facts a batch of results makes true, and the events they write (store/results-plan.ts,
// store/operational-plan.ts, domain/failing-thresholds.ts), and the circuit's (domain/endpoint-health.ts), on a fake
// clock with the real archive and health rules.
import type { AttemptFacts, AttemptResult } from '../../service/src/domain/attempt';
import { circuitFacts, type EndpointHealth, UNKNOWN_ENDPOINT } from '../../service/src/domain/endpoint-health';
import { afterAnswer, type Answer, DEFAULT_HEALTH_RULES } from '../../service/src/delivery/endpoint-health';
import { type DispatchState, type WebhookRecord, NEW_DISPATCH_STATE } from '../../service/src/domain/webhook';
import { nextDispatchState } from '../../service/src/delivery/archive-policy';
import { fakeOperationalEventMaker } from '../support/operational-event-maker';
import { FAILING_THRESHOLD_PERCENTS, thresholdsCrossed } from '../../service/src/domain/failing-thresholds';
import { planOperationalEvents } from '../../service/src/store/operational-plan';
import {
  type OperationalFact,
  operationalFactsWritten,
  planResults,
  type ResultsPlan,
} from '../../service/src/store/results-plan';

const T0 = 1_800_000_000_000_000;
const HOUR = 3600 * 1_000_000;
const FRESH: DispatchState = NEW_DISPATCH_STATE;

type Verdict = AttemptFacts['verdict'];
let n = 0;
/** A dispatcher's last attempt of a delivery of `webhookId` at `at`: failed for good unless it succeeded. */
function lastAttempt(webhookId: string, at: number, verdict: Verdict = 'failed'): AttemptResult {
  n += 1;
  const succeeded = verdict === 'succeeded';
  return {
    log: {
      deliveryId: `wdl_${n}`,
      webhookId,
      eventId: `wev_${n}`,
      eventType: 'job.run.completed',
      attempt: 6,
      requestedAt: at,
      durationMs: 1,
      statusCode: succeeded ? '200' : verdict === 'gone' ? '410' : '500',
      error: null,
      success: succeeded,
      responseExcerpt: '',
      responseHeaders: {},
      isTest: false,
    },
    facts: { requestedAt: at, statusCode: '500', verdict, exhausted: !succeeded, manual: false },
    delivery: { state: succeeded ? 'succeeded' : 'failed' },
    lease: 'owner/1',
  };
}

/** Plans each result in a batch of its own, as the dispatcher may, carrying the state from one to the next. */
function planEach(results: AttemptResult[], operational = new Set<string>()): OperationalFact[] {
  const states = new Map<string, DispatchState>();
  const facts: OperationalFact[] = [];
  for (const r of results) {
    const plan: ResultsPlan = planResults(
      [r],
      new Map([[r.log.webhookId, states.get(r.log.webhookId) ?? FRESH]]),
      nextDispatchState,
      operational,
    );
    states.set(r.log.webhookId, plan.dispatchStates.get(r.log.webhookId)!);
    facts.push(...plan.operational);
  }
  return facts;
}

const failing = (facts: OperationalFact[]) =>
  facts.flatMap((f) => (f.type === 'webhook.failing' ? [f.thresholdPercent] : []));

test.each([
  [0, 499, []],
  [499, 500, [50]],
  [500, 501, []],
  [699, 700, [70]],
  [899, 900, [90]],
  [999, 1000, [100]],
  [0, 1000, [...FAILING_THRESHOLD_PERCENTS]],
])('a streak going from %i to %i failed deliveries crosses %j', (before, after, crossed) => {
  expect(thresholdsCrossed(before, after)).toEqual(crossed);
});

test('a streak sends each threshold once, and a new streak after a success sends them again', () => {
  // One failed delivery a minute: 1,000 in under a day, so the 7-day rule plays no part.
  const streak = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => lastAttempt('wsu_a', T0 + (from + i) * 60_000_000));
  const facts = planEach([
    ...streak(0, 600),
    lastAttempt('wsu_a', T0 + 600 * 60_000_000, 'succeeded'),
    ...streak(601, 600),
  ]);
  expect(failing(facts)).toEqual([50, 50]);
  expect(facts.filter((f) => f.type === 'webhook.archived')).toEqual([]);
  const whole = planEach(streak(2000, 1000).map((r) => ({ ...r, log: { ...r.log, webhookId: 'wsu_b' } })));
  expect(failing(whole)).toEqual([50, 70, 90, 100]);
  expect(whole.filter((f) => f.type === 'webhook.archived')).toEqual([
    expect.objectContaining({ webhookId: 'wsu_b', reason: '1000 consecutive deliveries failed' }),
  ]);
});

test('7 days of failures archive the webhook once, on the fake clock, and results after it archive nothing more', () => {
  const facts = planEach([
    lastAttempt('wsu_a', T0),
    ...Array.from({ length: 7 * 24 }, (_, i) => lastAttempt('wsu_a', T0 + (i + 1) * HOUR)),
    lastAttempt('wsu_a', T0 + 200 * HOUR, 'gone'),
  ]);
  const archived = facts.filter((f) => f.type === 'webhook.archived');
  expect(archived).toEqual([
    {
      type: 'webhook.archived',
      webhookId: 'wsu_a',
      at: T0 + 7 * 24 * HOUR + 1000,
      reason: expect.stringMatching(/7 days/),
    },
  ]);
});

test("an operational endpoint's own results make no operational fact", () => {
  const facts = planEach(
    [lastAttempt('wsu_ops', T0, 'gone'), lastAttempt('wsu_a', T0 + 1, 'gone')],
    new Set(['wsu_ops']),
  );
  expect(facts.map((f) => [f.type, f.webhookId])).toEqual([
    ['delivery.exhausted', 'wsu_a'],
    ['webhook.archived', 'wsu_a'],
  ]);
});

test("an operational endpoint's attempts are logged but add nothing to the account's rollup", () => {
  const plan = planResults(
    [lastAttempt('wsu_ops', T0), lastAttempt('wsu_a', T0 + 1)],
    new Map([
      ['wsu_ops', FRESH],
      ['wsu_a', FRESH],
    ]),
    nextDispatchState,
    new Set(['wsu_ops']),
  );
  expect(plan.logged.map(({ entry }) => entry.webhookId)).toEqual(['wsu_ops', 'wsu_a']);
  expect(plan.rollup.map((entry) => entry.webhookId)).toEqual(['wsu_a']);
});

test('a delivery failed for good counts only if its move was written (its lease still held)', () => {
  const facts = planEach([lastAttempt('wsu_a', T0), lastAttempt('wsu_a', T0 + 1)]);
  const exhausted = facts.filter((f) => f.type === 'delivery.exhausted');
  expect(exhausted).toHaveLength(2);
  const first = exhausted[0]!.type === 'delivery.exhausted' ? exhausted[0]!.deliveryId : '';
  expect(operationalFactsWritten(facts, (id) => id === first)).toEqual([exhausted[0]]);
});

function record(id: string, overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id,
    kind: 'job',
    accountId: 1,
    accountIdentifier: 'act_1',
    name: `hook ${id}`,
    description: '',
    clientUrl: `https://example.com/${id}`,
    eventTypes: ['job.run.completed'],
    jobIds: [],
    active: true,
    maxRequestsPerSecond: null,
    sealedSecret: 's',
    previousSealedSecret: null,
    previousSecretUntil: null,
    createdAt: T0,
    updatedAt: T0,
    ...FRESH,
    endpointHealth: UNKNOWN_ENDPOINT,
    endpointHealthRevision: 0,
    ...overrides,
  };
}

test('each fact is one event, delivered to the operational endpoints that want its type, skipped for an archived one', () => {
  const maker = fakeOperationalEventMaker({ fill: 0xab });
  const ops = (id: string, overrides: Partial<WebhookRecord>) =>
    record(id, { kind: 'operational', eventTypes: ['webhook.archived'], ...overrides });
  const endpoints = [
    ops('wsu_wants', {}),
    ops('wsu_other_type', { eventTypes: ['delivery.exhausted'] }),
    ops('wsu_archived', { archivedAt: T0, archivedReason: 'x' }),
    ops('wsu_inactive', { active: false }),
  ];
  const fact: OperationalFact = {
    type: 'webhook.archived',
    webhookId: 'wsu_a',
    at: T0,
    reason: 'The endpoint answered 410 Gone',
  };
  const aboutOps: OperationalFact = { ...fact, webhookId: 'wsu_wants' };
  const subjects = new Map([
    ['wsu_a', record('wsu_a')],
    ['wsu_wants', endpoints[0]!],
  ]);
  const events = planOperationalEvents([fact, aboutOps], subjects, () => endpoints, maker);
  expect(events).toHaveLength(1);
  // A trace of its own, sampled, that its attempts continue.
  expect(events[0]!.trace).toEqual({ traceparent: `00-${'ab'.repeat(16)}-${'ab'.repeat(8)}-01`, tracestate: null });
  expect(events[0]!.deliveries.map((d) => [d.webhookId, d.state])).toEqual([
    ['wsu_wants', 'pending'],
    ['wsu_archived', 'skipped'],
  ]);
  expect(JSON.parse(events[0]!.payload.toString('utf8'))).toEqual({
    id: events[0]!.id,
    type: 'webhook.archived',
    timestamp: new Date(T0 / 1000).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z'),
    account_id: 1,
    data: {
      webhook: {
        id: 'wsu_a',
        name: 'hook wsu_a',
        description: '',
        client_url: 'https://example.com/wsu_a',
        account_identifier: 'act_1',
        ui_url: '/ui/#/webhooks/wsu_a',
      },
      rule: 'gone',
      reason: 'The endpoint answered 410 Gone',
    },
  });
});

describe('circuit events, on a fake clock with the real health rules', () => {
  const RULES = { ...DEFAULT_HEALTH_RULES, maxInFlight: 16 };
  const SECOND = 1_000_000;
  const answer = (signal: 'healthy' | 'sick', now: number): Answer => ({
    signal,
    now,
    sentAt: now - 1,
    jitter: 0,
    manual: false,
  });

  /** The circuit facts of each answer in turn, as the store computes them where it writes the health. */
  function factsOf(answers: Answer[]): OperationalFact[] {
    let health: EndpointHealth = UNKNOWN_ENDPOINT;
    return answers.flatMap((a) => {
      const after = afterAnswer(health, a, RULES);
      const facts = circuitFacts('wsu_a', health, after, a.now);
      health = after;
      return facts;
    });
  }

  test('the circuit opening is one event per sick streak, not one per failed probe; a healthy answer recovers it', () => {
    let t = T0;
    const sickStreak = Array.from({ length: 5 }, () => answer('sick', (t += SECOND)));
    // Failed probes, each after the circuit's open period: the circuit opens again, with no new event.
    const failedProbes = Array.from({ length: 3 }, () => answer('sick', (t += 600 * SECOND)));
    const probe = answer('healthy', (t += 600 * SECOND));
    const secondStreak = Array.from({ length: 5 }, () => answer('sick', (t += SECOND)));
    const facts = factsOf([...sickStreak, ...failedProbes, probe, ...secondStreak]);
    expect(facts.map((f) => [f.type, f.at])).toEqual([
      ['webhook.circuit_opened', sickStreak[4]!.now],
      ['webhook.recovered', probe.now],
      ['webhook.circuit_opened', secondStreak[4]!.now],
    ]);
    expect(facts[0]).toMatchObject({ sickInARow: 5, openUntil: sickStreak[4]!.now + 10 * SECOND });
  });

  test('a healthy answer to an endpoint whose circuit never opened recovers nothing', () => {
    let t = T0;
    const facts = factsOf([answer('sick', (t += 1)), answer('sick', (t += 1)), answer('healthy', (t += 1))]);
    expect(facts).toEqual([]);
  });
});
