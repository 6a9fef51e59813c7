// Shared rows and steps of the store contract suite: every test opens a fresh store of the backend its jest
// project selects (test/support/postgres.ts), and builds its records with these plain literals.
import type { AccountRecord } from '../../../service/src/domain/account';
import type { AttemptFacts, AttemptLogEntry, AttemptResult, AttemptVerdict } from '../../../service/src/domain/attempt';
import type { ClaimedDelivery, DeliveryChange, DueCandidate, NewDelivery } from '../../../service/src/domain/delivery';
import { UNKNOWN_ENDPOINT } from '../../../service/src/domain/endpoint-health';
import type { EventRecord } from '../../../service/src/domain/event';
import {
  type DispatchState,
  type FanOutWebhook,
  NEW_DISPATCH_STATE,
  type WebhookRecord,
} from '../../../service/src/domain/webhook';
import type { ClaimRequest, IngestOutcome, Store } from '../../../service/src/store/store';
import { testBackend } from '../../support/postgres';
import { openTestStore, type TestStore } from '../../support/stores';

export const backend = testBackend();

/** A fixed instant (microseconds since the epoch) every test counts from; nothing waits for real time. */
export const T0 = 1_800_000_000_000_000;
export const SECOND = 1_000_000;

/** The open store, and where its database is, for a test that sets the database up by hand. */
export type OpenStore = (() => Store) & { where(): { dbPath: string; databaseUrl: string | null } };

/** Opens a fresh store before each test and closes it after; call at the top of a test file. */
export function useStore(): OpenStore {
  let opened: TestStore | null = null;
  beforeEach(async () => {
    opened = await openTestStore(backend);
  });
  afterEach(async () => {
    const closing = opened;
    opened = null;
    if (closing === null) return;
    const errors = [...closing.backgroundErrors];
    await closing.close();
    expect(errors).toEqual([]);
  });
  const current = (): TestStore => {
    if (opened === null) throw new Error('no store is open outside a test');
    return opened;
  };
  return Object.assign(() => current().store, {
    where: () => {
      const { location } = current();
      return backend === 'postgres' ? { dbPath: '', databaseUrl: location } : { dbPath: location, databaseUrl: null };
    },
  });
}

export function account(id: number, overrides: Partial<AccountRecord> = {}): AccountRecord {
  return { id, identifier: `act_${id}`, name: `Account ${id}`, plan: 'enterprise', createdAt: T0, ...overrides };
}

/** A webhook of `accountId` whose every field survives a round trip through the store unchanged. */
export function webhook(accountId: number, id: string, overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id,
    kind: 'job',
    accountId,
    accountIdentifier: `act_${accountId}`,
    name: `hook ${id}`,
    description: 'a contract test webhook',
    clientUrl: `http://127.0.0.1:9/${id}`,
    eventTypes: ['job.run.completed', 'job.run.errored'],
    jobIds: ['42', '7'],
    active: true,
    maxRequestsPerSecond: null,
    sealedSecret: `v1:sealed-${id}`,
    previousSealedSecret: null,
    previousSecretUntil: null,
    createdAt: T0,
    updatedAt: T0,
    ...NEW_DISPATCH_STATE,
    // A store that keeps endpoint health with the webhook reads a new one back as not heard from.
    endpointHealth: UNKNOWN_ENDPOINT,
    endpointHealthRevision: 0,
    ...overrides,
  };
}

/** Inserts the webhook (no limit, no idempotency key) and fails the test unless it was created. */
export async function addWebhook(store: Store, record: WebhookRecord): Promise<WebhookRecord> {
  const outcome = await store.webhooks.create(record, { maxPerAccount: 1000, idempotency: null });
  if (outcome.kind !== 'created') throw new Error(`webhook ${record.id} was not created: ${JSON.stringify(outcome)}`);
  return record;
}

/** Account `accountId` with webhooks of the given ids, created one microsecond apart in that order. */
export async function accountWithWebhooks(store: Store, accountId: number, ids: string[]): Promise<WebhookRecord[]> {
  await store.accounts.insert(account(accountId));
  const created: WebhookRecord[] = [];
  for (const [i, id] of ids.entries())
    created.push(await addWebhook(store, webhook(accountId, id, { createdAt: T0 + i })));
  return created;
}

/** A valid `traceparent` of its own for each event id: its ingestion span in a trace of its own. */
export function traceparentOf(eventId: string): string {
  const hex = Buffer.from(eventId.padEnd(16, '.')).toString('hex');
  return `00-${hex.slice(0, 32)}-${hex.slice(0, 16)}-01`;
}

export function event(accountId: number, id: string, overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    id,
    accountId,
    eventType: 'job.run.completed',
    runId: `run-${id}`,
    jobId: '42',
    createdAt: T0,
    trace: { traceparent: traceparentOf(id), tracestate: null },
    ...overrides,
  };
}

export const TAIL = Buffer.from(',"data":{"runId":"shared run data"}}', 'utf8');
export const headOf = (deliveryId: string) => Buffer.from(`{"deliveryId":"${deliveryId}"`, 'utf8');

/** The delivery id a fan-out gives `event` x `webhook`. */
export const deliveryId = (eventId: string, webhookId: string) => `${eventId}.${webhookId}`;

/** A fan-out that plans a pending delivery to each webhook (or those `pick` keeps; the others skipped). */
export function fanOutToAll(eventId: string, pick: (hook: FanOutWebhook) => boolean = () => true) {
  return (webhooks: readonly FanOutWebhook[]) => ({
    payloadTail: TAIL,
    deliveries: webhooks.map((hook): NewDelivery => ({
      id: deliveryId(eventId, hook.id),
      webhookId: hook.id,
      state: pick(hook) ? 'pending' : 'skipped',
      payloadHead: headOf(deliveryId(eventId, hook.id)),
    })),
  });
}

/** Records an event that plans no delivery, and resolves with the webhooks its fan-out was given. */
export async function webhooksSeenByFanOut(store: Store, record: EventRecord): Promise<readonly FanOutWebhook[]> {
  let seen: readonly FanOutWebhook[] = [];
  await store.events.record(record, (webhooks) => {
    seen = webhooks;
    return { payloadTail: TAIL, deliveries: [] };
  });
  return seen;
}

/** Records an event fanned out to every webhook of its account, and fails the test unless it was recorded. */
export async function recordEvent(store: Store, record: EventRecord): Promise<IngestOutcome> {
  const outcome = await store.events.record(record, fanOutToAll(record.id));
  if (outcome.kind !== 'recorded') throw new Error(`event ${record.id} was not recorded: ${JSON.stringify(outcome)}`);
  return outcome;
}

export function claimRequest(now: number, overrides: Partial<ClaimRequest> = {}): ClaimRequest {
  return {
    owner: 'dispatcher-a',
    now,
    leaseUntil: now + 30 * SECOND,
    perWebhook: 16,
    excludeWebhookIds: [],
    ...overrides,
  };
}

/** Claims every due delivery the store offers at `now`. */
export function claimAll(store: Store, now: number, overrides: Partial<ClaimRequest> = {}): Promise<ClaimedDelivery[]> {
  return store.deliveries.claimDue(claimRequest(now, overrides), (candidates) => candidates);
}

/** What the store offers a claim at `now`, without leasing anything. */
export async function candidatesAt(
  store: Store,
  now: number,
  overrides: Partial<ClaimRequest> = {},
): Promise<DueCandidate[]> {
  let offered: DueCandidate[] = [];
  await store.deliveries.claimDue(claimRequest(now, overrides), (candidates) => {
    offered = candidates;
    return [];
  });
  return offered;
}

export const ids = (items: ReadonlyArray<{ id: string }>) => items.map((item) => item.id);
export const sortedIds = (items: ReadonlyArray<{ id: string }>) => ids(items).sort();

export interface AttemptOutcome {
  requestedAt: number;
  delivery: DeliveryChange;
  statusCode?: string;
  verdict?: AttemptVerdict;
  durationMs?: number;
  /** The lease the result is recorded under; the claim's own by default. */
  lease?: string | null;
}

/** The result of one attempt of a claimed delivery, as the dispatcher hands it to recordAttempts. */
export function attemptOf(claimed: ClaimedDelivery, outcome: AttemptOutcome): AttemptResult {
  const verdict = outcome.verdict ?? (outcome.delivery.state === 'succeeded' ? 'succeeded' : 'failed');
  const statusCode = outcome.statusCode ?? (verdict === 'succeeded' ? '200' : verdict === 'gone' ? '410' : '500');
  const facts: AttemptFacts = {
    requestedAt: outcome.requestedAt,
    statusCode,
    verdict,
    exhausted: outcome.delivery.state === 'failed',
    manual: outcome.lease === null,
  };
  return {
    log: {
      deliveryId: claimed.id,
      webhookId: claimed.webhookId,
      eventId: claimed.eventId,
      eventType: claimed.eventType,
      attempt: claimed.attempts + 1,
      requestedAt: outcome.requestedAt,
      durationMs: outcome.durationMs ?? 5,
      statusCode,
      error: verdict === 'succeeded' ? null : `HTTP ${statusCode}`,
      success: verdict === 'succeeded',
      responseExcerpt: `answer ${statusCode}`,
      responseHeaders: { 'content-type': 'text/plain' },
      isTest: false,
    },
    facts,
    delivery: outcome.delivery,
    lease: outcome.lease === undefined ? claimed.lease : outcome.lease,
  };
}

/** A dispatch-state rule simple enough to check: the last status, and failures counted since the last success. */
export function countFailures(current: DispatchState, facts: AttemptFacts): DispatchState {
  const succeeded = facts.verdict === 'succeeded';
  return {
    ...current,
    httpStatusCode: facts.statusCode,
    dispatchedAt: facts.requestedAt,
    consecutiveFailures: succeeded ? 0 : current.consecutiveFailures + 1,
    failingSince: succeeded ? null : (current.failingSince ?? facts.requestedAt),
    lastFailureAt: succeeded ? current.lastFailureAt : facts.requestedAt,
  };
}

/** A test send's log row (no delivery) to `wsu_a`, answered 200, with the fields `overrides` gives. */
export function testSendEntry(overrides: Partial<AttemptLogEntry> = {}): AttemptLogEntry {
  return {
    deliveryId: null,
    webhookId: 'wsu_a',
    eventId: 'wev_test',
    eventType: 'job.run.completed',
    attempt: 1,
    requestedAt: T0,
    durationMs: 12,
    statusCode: '200',
    error: null,
    success: true,
    responseExcerpt: 'ok',
    responseHeaders: {},
    isTest: true,
    ...overrides,
  };
}
