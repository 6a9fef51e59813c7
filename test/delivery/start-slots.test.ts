// A rate-limited delivery's start slot, in a dispatcher on a real store and a manual clock, with another instance
// standing in by asking for the same slot first: refused, the delivery keeps its lease and waits for the slot the
// store named, no claim takes another delivery of its webhook meanwhile, and its attempt is logged at the very start
// granted; with no slot in time it sends nothing, and is due again, its attempts unchanged, when its lease runs out.
import { createManualClock, createSystemClock, type ManualClock } from '../../service/src/core/clock';
import { cryptoRandomBytes } from '../../service/src/core/random';
import { createHeadersOnlyTracing } from '../../service/src/core/tracing';
import { createDispatcher, type Dispatcher } from '../../service/src/delivery/dispatcher';
import { DEFAULT_HEALTH_RULES, EndpointHealthRegistry } from '../../service/src/delivery/endpoint-health';
import type { OutgoingDelivery, SendOutcome } from '../../service/src/delivery/sender';
import { signPayload } from '../../service/src/delivery/signer';
import { canWaitFor, START_MARGIN_MICROS } from '../../service/src/delivery/start-slots';
import { UNKNOWN_ENDPOINT } from '../../service/src/domain/endpoint-health';
import type { StartDecision } from '../../service/src/domain/send-rate';
import type { Store } from '../../service/src/store/store';
import { createWebhook, type Harness, startHarness, validCreateBody, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { sleep, waitFor } from '../support/wait';

const LEASE_MICROS = 60_000_000;
const SPACING_MICROS = 200_000;
const OK: SendOutcome = { kind: 'response', status: 200, durationMs: 1, bodyExcerpt: '', retryAfter: null };

let h: Harness;
let dispatcher: Dispatcher | null = null;
beforeEach(async () => {
  h = await startHarness();
  // The harness's own dispatchers stand down; the test runs one it can watch.
  for (const service of h.services) await service.dispatcher.stop(0);
});
afterEach(async () => {
  await dispatcher?.stop(1000);
  dispatcher = null;
  await h.close();
});

interface Ask {
  at: number;
  answer: StartDecision;
}

/**
 * The harness's store, watched: the deliveries each claim leased, and each start slot this dispatcher asked for.
 * Before this dispatcher's first ask, another instance takes a slot at `competitorAt(at)`.
 */
function contestedStore(competitorAt: (at: number) => number) {
  const store = h.service.store;
  const claimed: string[] = [];
  const asks: Ask[] = [];
  const watched: Store = {
    ...store,
    webhooks: {
      ...store.webhooks,
      takeStartSlot: async (id, at, spacing) => {
        if (asks.length === 0) await store.webhooks.takeStartSlot(id, competitorAt(at), spacing);
        const answer = await store.webhooks.takeStartSlot(id, at, spacing);
        asks.push({ at, answer });
        return answer;
      },
    },
    deliveries: {
      ...store.deliveries,
      claimDue: async (request, choose) => {
        const leased = await store.deliveries.claimDue(request, choose);
        claimed.push(...leased.map((delivery) => delivery.id));
        return leased;
      },
    },
  };
  return { store: watched, claimed, asks };
}

/**
 * A clock that stands still unless moved, but for a microsecond at every reading: a start read again after the slot
 * was granted would differ from the time the slot was asked for.
 */
function creepingClock(): ManualClock {
  const clock = createManualClock(createSystemClock().nowNanos() + 1_000_000_000n);
  return { ...clock, nowNanos: () => (clock.set(clock.nowNanos() + 1000n), clock.nowNanos()) };
}

function startDispatcher(store: Store, clock: ManualClock, sent: OutgoingDelivery[]): void {
  dispatcher = createDispatcher({
    store,
    clock,
    send: async (request) => (sent.push(request), OK),
    random: cryptoRandomBytes,
    tracing: createHeadersOnlyTracing(cryptoRandomBytes),
    // Each sealed secret opens to a text of its own, so a signature tells which secret made it.
    secretBox: { seal: (text) => text, open: (sealed) => `opened:${sealed}` },
    owner: 'test',
    retryDelaysSeconds: [60],
    limits: { maxInFlight: 4, maxInFlightPerWebhook: 4, leaseMicros: LEASE_MICROS, pollIntervalMs: 10 },
    health: new EndpointHealthRegistry({ ...DEFAULT_HEALTH_RULES, maxInFlight: 4 }, () => 0, {
      store: store.endpointHealth,
      onError: (error) => {
        throw error;
      },
    }),
    onError: (error) => {
      throw error;
    },
  });
  dispatcher.start();
}

/** A webhook limited to 5 requests per second, its endpoint proven, with three due deliveries. */
async function limitedWebhookWithBacklog(): Promise<string> {
  const hook = await createWebhook(h, {
    client_url: 'http://127.0.0.1:9/hook',
    event_types: ['job.run.completed'],
    max_requests_per_second: 5,
  });
  // Its endpoint answered healthily before and may have 4 requests at once: only the rate holds its others back.
  await h.service.store.endpointHealth.change(hook.id, () => ({ ...UNKNOWN_ENDPOINT, heard: true, limit: 4 }));
  for (let run = 1; run <= 3; run += 1) await ingest(h, 'job.run.completed', { runId: String(run) });
  return hook.id;
}

/**
 * The webhook and its backlog, and this dispatcher started on the contested store (`competitorAt` as in
 * contestedStore), once its first ask for a start slot is answered.
 */
async function firstAskContested(competitorAt: (at: number) => number) {
  const hookId = await limitedWebhookWithBacklog();
  const clock = creepingClock();
  const { store, claimed, asks } = contestedStore(competitorAt);
  const sent: OutgoingDelivery[] = [];
  startDispatcher(store, clock, sent);
  await waitFor(() => asks.length === 1, 'the first ask');
  return { hookId, clock, claimed, asks, sent };
}

test('a delivery waits for a slot only while its attempt can still end inside its lease', () => {
  const leaseUntil = 100 * LEASE_MICROS;
  expect(START_MARGIN_MICROS).toBe(13_000_000);
  expect(canWaitFor(leaseUntil - START_MARGIN_MICROS, leaseUntil)).toBe(true);
  expect(canWaitFor(leaseUntil - START_MARGIN_MICROS + 1, leaseUntil)).toBe(false);
});

test('refused its start slot, a delivery waits for it with its lease, its webhook gets no other claim meanwhile, and its attempt is logged at the start granted', async () => {
  // Another instance asks first, for the same moment: this dispatcher's first ask is refused.
  const { hookId, clock, claimed, asks, sent } = await firstAskContested((at) => at);
  const refused = asks[0]!;
  expect(refused.answer).toEqual({ granted: false, retryAt: expect.any(Number) });
  const retryAt = (refused.answer as { retryAt: number }).retryAt;
  expect(retryAt - refused.at).toBeGreaterThan(0);
  expect(retryAt - refused.at).toBeLessThanOrEqual(SPACING_MICROS);

  // The slot comes: claims (every 10 ms) would now find the webhook's next start come, but one of its deliveries
  // is waiting for it, so they take no other; the waiting one gets the slot.
  clock.set(BigInt(retryAt) * 1000n);
  await waitFor(() => sent.length === 1, 'the waiting delivery to start');
  expect(claimed).toHaveLength(1);
  expect(sent[0]!.headers['webhook-id']).toBe(claimed[0]);
  expect(sent[0]!.headers['x-jobhooks-attempt']).toBe('1');
  const granted = asks.find((ask) => ask.answer.granted)!;
  expect(granted.at).toBeGreaterThanOrEqual(retryAt);

  // The delivery log's start is the time the slot was granted for, not a reading of the clock after it.
  const logged = async () =>
    (await h.call('GET', `${webhookPath(hookId)}/deliveries`)).json().data as Array<{ requested_at: string }>;
  await waitFor(async () => (await logged()).length === 1, 'the attempt to be logged');
  expect(Number((await logged())[0]!.requested_at)).toBe(granted.at);
});

test('a delivery waiting for its start slot goes to the client_url and is signed with the secret its webhook has when the slot comes', async () => {
  const { hookId, clock, asks, sent } = await firstAskContested((at) => at);
  const { retryAt } = asks[0]!.answer as { retryAt: number };

  // Meanwhile the user moves the webhook and rotates its secret with no overlap: the old secret signs nothing now.
  const current = (await h.call('GET', webhookPath(hookId))).json().data;
  const moved = await h.call('PUT', webhookPath(hookId), {
    body: {
      ...validCreateBody({ client_url: 'http://127.0.0.1:10/moved', event_types: current.event_types }),
      max_requests_per_second: 5,
    },
  });
  expect(moved.statusCode).toBe(200);
  const rotated = await h.call('POST', `${webhookPath(hookId)}/secret/rotate`, { body: { overlap_seconds: 0 } });
  expect(rotated.statusCode).toBe(200);
  const sealed = (
    await h.db.rows<{ sealed_secret: string }>('SELECT sealed_secret FROM webhooks WHERE id = ?', [hookId])
  )[0]!.sealed_secret;

  clock.set(BigInt(retryAt) * 1000n);
  await waitFor(() => sent.length === 1, 'the waiting delivery to start');
  expect(sent[0]!.url).toBe('http://127.0.0.1:10/moved');
  expect(sent[0]!.headers.authorization).toBe(signPayload(`opened:${sealed}`, sent[0]!.body));
  // One signature only: the replaced secret's overlap is over.
  expect(sent[0]!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
});

test('with no slot before its lease would run out, a delivery sends nothing and is due again, its attempts unchanged, when its lease ends', async () => {
  // Another instance holds the slots for 50 s: waiting would end 3 s before a 60 s lease does, inside the margin.
  const { clock, claimed, asks, sent } = await firstAskContested((at) => at + 50_000_000);
  expect(asks[0]!.answer).toEqual({ granted: false, retryAt: asks[0]!.at + 50_000_000 + SPACING_MICROS });
  // It gave up at once: it asks no more, sends nothing, and no claim takes its webhook's others before the slot.
  await sleep(300);
  expect(asks).toHaveLength(1);
  expect(sent).toEqual([]);
  expect(claimed).toHaveLength(1);

  // Once its lease has run out it is due again, behind its webhook's others (its due time is its lease's end): each
  // of the three is sent once, at its first attempt, one start slot after the other.
  clock.advanceMillis(LEASE_MICROS / 1000 + 1000);
  for (let slot = 1; slot <= 3; slot += 1) {
    await waitFor(() => sent.length === slot, `start ${slot} after the lease ran out`);
    clock.advanceMillis(SPACING_MICROS / 1000);
  }
  expect(sent.map((request) => request.headers['x-jobhooks-attempt'])).toEqual(['1', '1', '1']);
  expect(new Set(sent.map((request) => request.headers['webhook-id'])).size).toBe(3);
  expect(sent.map((request) => request.headers['webhook-id'])).toContain(claimed[0]);
});

test('a dispatcher that stops ends the waits for start slots at once: no request starts after that', async () => {
  // Another instance holds the slots for 30 s: inside the lease, so the delivery waits.
  const { asks, sent } = await firstAskContested((at) => at + 30_000_000);
  expect(asks[0]!.answer).toMatchObject({ granted: false });

  const stopping = performance.now();
  await dispatcher!.stop(60_000);
  dispatcher = null;
  expect(performance.now() - stopping).toBeLessThan(5_000);
  expect(asks).toHaveLength(1);
  expect(sent).toEqual([]);
});

test('a webhook deactivated while its delivery waits for a start slot gets no request: the delivery is skipped', async () => {
  // Another instance asks first, for the same moment: this dispatcher's first ask is refused, and it waits.
  const { hookId, clock, claimed, asks, sent } = await firstAskContested((at) => at);
  const { retryAt } = asks[0]!.answer as { retryAt: number };

  // The user deactivates the webhook (a PUT with active false) before the slot comes.
  const current = (await h.call('GET', webhookPath(hookId))).json().data;
  const put = await h.call('PUT', webhookPath(hookId), {
    body: { ...validCreateBody({ client_url: current.client_url, event_types: current.event_types }), active: false },
  });
  expect(put.json().data.active).toBe(false);

  clock.set(BigInt(retryAt) * 1000n);
  await waitFor(() => asks.length === 2, 'the ask when the slot comes');
  expect(asks[1]!.answer).toEqual({ granted: false, stopped: true });
  const stateOf = async (id: string) =>
    (await h.db.rows<{ state: string }>('SELECT state FROM deliveries WHERE id = ?', [id]))[0]!.state;
  await waitFor(async () => (await stateOf(claimed[0]!)) === 'skipped', 'the waiting delivery to be skipped');
  // Its webhook's other two are skipped when claims take them, as every claim after a deactivation does.
  await waitFor(async () => claimed.length === 3, 'the other deliveries to be claimed');
  for (const id of claimed) await waitFor(async () => (await stateOf(id)) === 'skipped', `${id} to be skipped`);
  expect(sent).toEqual([]);
});
