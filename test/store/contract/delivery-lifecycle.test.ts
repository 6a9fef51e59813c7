// The delivery state machine (service/src/domain/delivery-lifecycle.ts) against the store, on either backend: each
// transition of the table is made the way the service makes it, and the stage before and after is the table's.
import {
  afterRedelivery,
  afterScheduledAttempt,
  DELIVERY_TRANSITIONS,
  type DeliveryStage,
  type DeliveryTransition,
  type DeliveryTransitionName,
  type NextStep,
  plannedState,
  skippedAtClaim,
} from '../../../service/src/domain/delivery-lifecycle';
import type { ClaimedDelivery } from '../../../service/src/domain/delivery';
import type { AttemptFacts } from '../../../service/src/domain/attempt';
import type { DispatchState, WebhookRecord } from '../../../service/src/domain/webhook';
import { type DatabaseInspector, inspectDatabase } from '../../support/db-inspect';
import {
  accountWithWebhooks,
  attemptOf,
  claimAll,
  countFailures,
  deliveryId,
  event,
  headOf,
  SECOND,
  T0,
  TAIL,
  useStore,
} from './fixtures';

const store = useStore();
const LEASE = 30 * SECOND;
let db: DatabaseInspector;

beforeEach(async () => {
  await accountWithWebhooks(store(), 1, ['wsu_a', 'wsu_b']);
  db = inspectDatabase(store.where());
});
afterEach(() => db.close());

/** The stage of a delivery at `now`, read from its row: pending under an unexpired lease is leased. */
async function stageOf(id: string, now: number): Promise<DeliveryStage> {
  const [row] = await db.rows<{ state: DeliveryStage; lease_owner: string | null; next_attempt_at: number | null }>(
    'SELECT state, lease_owner, next_attempt_at FROM deliveries WHERE id = ?',
    [id],
  );
  if (row === undefined) throw new Error(`no delivery ${id}`);
  if (row.state !== 'pending') return row.state;
  return row.lease_owner !== null && row.next_attempt_at !== null && row.next_attempt_at > now ? 'leased' : 'pending';
}

const A1 = deliveryId('wev_1', 'wsu_a');
const B1 = deliveryId('wev_1', 'wsu_b');

/** Event `eventId` of account 1, its deliveries planned from each webhook's state as the service plans them. */
async function plannedEvent(eventId = 'wev_1'): Promise<void> {
  await store().events.record(event(1, eventId, { createdAt: T0 }), (webhooks) => ({
    payloadTail: TAIL,
    deliveries: webhooks.flatMap((hook) => {
      const state = plannedState(hook);
      const id = deliveryId(eventId, hook.id);
      return state === null ? [] : [{ id, webhookId: hook.id, state, payloadHead: headOf(id) }];
    }),
  }));
}

const changeB = (change: Partial<WebhookRecord>) =>
  store().webhooks.update(1, 'wsu_b', (current) => ({ ...current, ...change }));

async function claimA(now: number): Promise<ClaimedDelivery> {
  const [claimed] = await claimAll(store(), now, { excludeWebhookIds: ['wsu_b'], leaseUntil: now + LEASE });
  if (claimed === undefined) throw new Error('nothing claimed');
  return claimed;
}

/** A dispatcher's attempt of a claimed delivery, its next step decided by the lifecycle. */
async function attempted(claimed: ClaimedDelivery, step: NextStep, at: number, rule = countFailures): Promise<void> {
  const delivery = afterScheduledAttempt(step);
  const verdict = step.kind === 'succeeded' ? 'succeeded' : 'failed';
  await store().deliveries.recordAttempts([attemptOf(claimed, { requestedAt: at, delivery, verdict })], rule);
}

type Observed = Array<{ from: DeliveryStage | null; to: DeliveryStage }>;

/** A leased delivery of wsu_a, and its stage just after the claim. */
async function leasedA(): Promise<{ claimed: ClaimedDelivery; from: DeliveryStage }> {
  await plannedEvent();
  const claimed = await claimA(T0);
  return { claimed, from: await stageOf(claimed.id, T0 + 1) };
}

/** How the service makes each transition, and the stages seen; a transition added to the table needs its own. */
const MADE: Record<DeliveryTransitionName, () => Promise<Observed>> = {
  planned: async () => {
    await changeB({ archivedAt: T0 - SECOND, archivedReason: 'gone' });
    await plannedEvent('wev_1');
    await changeB({ active: false, archivedAt: null, archivedReason: null });
    await plannedEvent('wev_2');
    const rows = await db.rows<{ n: number }>('SELECT count(*) AS n FROM deliveries WHERE webhook_id = ?', ['wsu_b']);
    expect(rows[0]!.n).toBe(1); // the inactive webhook got no delivery of wev_2
    return [
      { from: null, to: await stageOf(A1, T0) },
      { from: null, to: await stageOf(B1, T0) },
    ];
  },
  claimed: async () => {
    await plannedEvent();
    const from = await stageOf(A1, T0);
    await claimA(T0);
    return [{ from, to: await stageOf(A1, T0 + 1) }];
  },
  leaseExpired: async () => {
    await leasedA();
    return [{ from: await stageOf(A1, T0 + LEASE - 1), to: await stageOf(A1, T0 + LEASE) }];
  },
  retried: async () => {
    const { claimed, from } = await leasedA();
    await attempted(claimed, { kind: 'retry', dueAt: T0 + 5 * SECOND }, T0 + 1);
    return [{ from, to: await stageOf(A1, T0 + 2) }];
  },
  succeeded: async () => {
    const { claimed, from } = await leasedA();
    await attempted(claimed, { kind: 'succeeded' }, T0 + 1);
    return [{ from, to: await stageOf(A1, T0 + 2) }];
  },
  failed: async () => {
    const { claimed, from } = await leasedA();
    await attempted(claimed, { kind: 'exhausted' }, T0 + 1);
    return [{ from, to: await stageOf(A1, T0 + 2) }];
  },
  skipped: async () => {
    // At a claim: the webhook was archived after the event, so the dispatcher sends nothing.
    await plannedEvent();
    await store().webhooks.update(1, 'wsu_a', (current) => ({ ...current, archivedAt: T0, archivedReason: 'gone' }));
    const claimed = await claimA(T0);
    const atClaim = await stageOf(A1, T0 + 1);
    if (skippedAtClaim(claimed)) await store().deliveries.skip([claimed], claimed.lease, T0 + 1);
    // When the archive is written: a result of wsu_b archives it; its delivery not yet attempted is skipped.
    await plannedEvent('wev_2');
    const [first] = await claimAll(store(), T0 + 2, { excludeWebhookIds: ['wsu_a'] });
    const second = first!.id === B1 ? deliveryId('wev_2', 'wsu_b') : B1;
    const waiting = await stageOf(second, T0 + 2);
    const archive = (current: DispatchState, facts: AttemptFacts): DispatchState => ({
      ...countFailures(current, facts),
      archivedAt: facts.requestedAt,
      archivedReason: 'gone',
    });
    await attempted(first!, { kind: 'exhausted' }, T0 + 3, archive);
    return [
      { from: atClaim, to: await stageOf(A1, T0 + 4) },
      { from: waiting, to: await stageOf(second, T0 + 4) },
    ];
  },
  recovered: async () => {
    const { claimed } = await leasedA();
    await attempted(claimed, { kind: 'exhausted' }, T0 + 1);
    const from = await stageOf(A1, T0 + 2);
    await store().deliveries.recoverFailed('wsu_a', { since: T0, until: T0 + SECOND }, T0 + 2);
    return [{ from, to: await stageOf(A1, T0 + 3) }];
  },
  redelivered: async () => {
    const { claimed } = await leasedA();
    await attempted(claimed, { kind: 'exhausted' }, T0 + 1);
    const from = await stageOf(A1, T0 + 2);
    const byPerson = (succeeded: boolean, at: number) =>
      attemptOf(
        { ...claimed, attempts: 1 },
        {
          requestedAt: at,
          delivery: afterRedelivery(succeeded),
          verdict: succeeded ? 'succeeded' : 'failed',
          lease: null,
        },
      );
    await store().deliveries.recordAttempts([byPerson(false, T0 + 2)], countFailures);
    const afterFailure = await stageOf(A1, T0 + 3);
    await store().deliveries.recordAttempts([byPerson(true, T0 + 3)], countFailures);
    return [
      { from, to: afterFailure },
      { from: afterFailure, to: await stageOf(A1, T0 + 4) },
    ];
  },
};

/** Every stage the walk saw, for the last test (jest runs a file's tests in order). */
const seen = new Set<DeliveryStage>();

test.each(Object.keys(DELIVERY_TRANSITIONS) as DeliveryTransitionName[])(
  '%s moves a delivery only as the table says',
  async (name) => {
    const transition: DeliveryTransition = DELIVERY_TRANSITIONS[name];
    const observed = await MADE[name]();
    expect(observed.length).toBeGreaterThan(0);
    for (const { from, to } of observed) {
      if (from === null) expect(transition.from).toEqual([]);
      else expect(transition.from).toContain(from);
      expect(transition.to).toContain(to);
      if (from !== null) seen.add(from);
      seen.add(to);
    }
  },
);

test('the walk saw a delivery in every stage', () => {
  expect([...seen].sort()).toEqual(['failed', 'leased', 'pending', 'skipped', 'succeeded']);
});
