// On PostgreSQL a claim looks at the 256 webhooks whose due deliveries are oldest. When it can send to none of them,
// because other instances' requests fill them or because their endpoints are not proven healthy and such endpoints
// hold every slot they may share, the dispatcher must still reach the webhooks further down, at once rather than
// never: it leaves those out of the claims that follow. With fewer webhooks than that, it leaves nothing out: a
// webhook another instance filled is taken up as soon as its requests end.
import { createManualClock, type ManualClock } from '../../service/src/core/clock';
import { cryptoRandomBytes } from '../../service/src/core/random';
import { createHeadersOnlyTracing } from '../../service/src/core/tracing';
import { createDispatcher, type Dispatcher } from '../../service/src/delivery/dispatcher';
import { DEFAULT_HEALTH_RULES, EndpointHealthRegistry } from '../../service/src/delivery/endpoint-health';
import { UNPROVEN_SHARE } from '../../service/src/delivery/scheduler';
import type { OutgoingDelivery, Send, SendOutcome } from '../../service/src/delivery/sender';
import type { ClaimedDelivery } from '../../service/src/domain/delivery';
import type { Store } from '../../service/src/store/store';
import { useSuiteCluster } from '../support/postgres';
import { openTestStore, type TestStore } from '../support/stores';
import { waitFor } from '../support/wait';
import { accountWithWebhooks, claimAll, deliveryId, event, recordEvent, SECOND, T0 } from '../store/contract/fixtures';

useSuiteCluster();

/** As many webhooks as one claim looks at. */
const CLAIM_WIDTH = 256;
/** The dispatcher's request slots in the tests below. */
const SLOTS = 64;

const ANSWERED: SendOutcome = { kind: 'response', status: 200, durationMs: 1, bodyExcerpt: '', retryAfter: null };

const TIMED_OUT: SendOutcome = { kind: 'no_response', error: 'timed out', durationMs: 10_000 };

let opened: TestStore;
let dispatcher: Dispatcher | null = null;
/** Requests that are never answered in a test: they time out when it ends. */
let hanging: Array<(outcome: SendOutcome) => void> = [];
beforeEach(async () => {
  opened = await openTestStore('postgres');
});
afterEach(async () => {
  for (const answer of hanging) answer(TIMED_OUT);
  hanging = [];
  await dispatcher?.stop(1000);
  dispatcher = null;
  await opened.close();
});

/**
 * `count` webhooks of account 1, each with a request in flight on another instance (all that its endpoint, not
 * heard from yet, allows) and an older delivery due than webhook `wh_free` of account 2 has; returns the other
 * instance's claims.
 */
async function busyElsewhere(store: Store, count: number): Promise<ClaimedDelivery[][]> {
  const busy = Array.from({ length: count }, (_, i) => `wh_busy_${String(i).padStart(3, '0')}`);
  await accountWithWebhooks(store, 1, busy);
  await accountWithWebhooks(store, 2, ['wh_free']);
  await recordEvent(store, event(1, 'wev_sent_elsewhere', { createdAt: T0 }));
  const claims: ClaimedDelivery[][] = [];
  for (let leased = 0; leased < count;) {
    const claimed = await claimAll(store, T0, { owner: 'instance-b', perWebhook: 1, leaseUntil: T0 + 60 * SECOND });
    expect(claimed.length).toBeGreaterThan(0);
    claims.push(claimed);
    leased += claimed.length;
  }
  await recordEvent(store, event(1, 'wev_waiting', { createdAt: T0 + 1 }));
  await recordEvent(store, event(2, 'wev_free', { createdAt: T0 + SECOND }));
  return claims;
}

/**
 * This instance's dispatcher, on a clock that stands still unless moved, with no poll in the test's time; each
 * endpoint answers 200 at once, unless `answer` says otherwise.
 */
function startDispatcher(
  store: Store,
  clock: ManualClock,
  sent: OutgoingDelivery[],
  answer: Send = async () => ANSWERED,
): Dispatcher {
  const health = new EndpointHealthRegistry({ ...DEFAULT_HEALTH_RULES, maxInFlight: 16 }, () => 0, {
    store: store.endpointHealth,
    onError: (error) => {
      throw error;
    },
  });
  const started = createDispatcher({
    store,
    clock,
    send: (request) => {
      sent.push(request);
      return answer(request);
    },
    random: cryptoRandomBytes,
    secretBox: { seal: (secret) => secret, open: (sealed) => sealed },
    tracing: createHeadersOnlyTracing(cryptoRandomBytes),
    owner: 'instance-a',
    retryDelaysSeconds: [60],
    limits: { maxInFlight: SLOTS, maxInFlightPerWebhook: 16, leaseMicros: 60 * SECOND, pollIntervalMs: 60_000 },
    health,
    onError: (error) => {
      throw error;
    },
  });
  started.start();
  started.wake();
  return started;
}

const urlsOf = (sent: OutgoingDelivery[]) => sent.map((request) => request.url);

/**
 * Starts this instance's dispatcher on a clock that stands still at T0 + 2 s, and waits until it sent its first
 * request: to `wh_free`, and to none of the busy webhooks.
 */
async function startAndSendTheFreeOne(
  store: Store,
): Promise<{ started: Dispatcher; clock: ManualClock; sent: OutgoingDelivery[] }> {
  const sent: OutgoingDelivery[] = [];
  const clock = createManualClock(BigInt(T0 + 2 * SECOND) * 1000n);
  const started = startDispatcher(store, clock, sent);
  dispatcher = started;
  await waitFor(() => sent.length > 0, "the free webhook's delivery", 10_000);
  expect(urlsOf(sent)).toEqual(['http://127.0.0.1:9/wh_free']);
  return { started, clock, sent };
}

/** The other instance's requests end: its deliveries leave its leases. */
async function endRequestsElsewhere(store: Store, elsewhere: ClaimedDelivery[][]): Promise<void> {
  for (const claimed of elsewhere) await store.deliveries.skip(claimed, claimed[0]!.lease, T0 + 2 * SECOND);
}

test('webhooks that another instance fills do not keep a claim from the webhooks behind them', async () => {
  const { store } = opened;
  const elsewhere = await busyElsewhere(store, CLAIM_WIDTH + 1);
  const { started, clock, sent } = await startAndSendTheFreeOne(store);

  // The other instance's requests end; a second later the busy webhooks are looked at again, and get theirs.
  await endRequestsElsewhere(store, elsewhere);
  clock.advanceMillis(1000);
  started.wake();
  await waitFor(() => sent.length === 2 + CLAIM_WIDTH, "every busy webhook's waiting delivery", 10_000);
  expect(new Set(urlsOf(sent)).size).toBe(2 + CLAIM_WIDTH);
});

test('with fewer webhooks than a claim looks at, one that another instance filled is taken up once it is free', async () => {
  const { store } = opened;
  const elsewhere = await busyElsewhere(store, 2);
  // The clock does not move: a webhook left out for a second would stay out.
  const { started, sent } = await startAndSendTheFreeOne(store);

  await endRequestsElsewhere(store, elsewhere);
  started.wake();
  await waitFor(() => sent.length === 3, "both busy webhooks' waiting deliveries", 10_000);
  expect(urlsOf(sent).slice(1).sort()).toEqual(['http://127.0.0.1:9/wh_busy_000', 'http://127.0.0.1:9/wh_busy_001']);
});

test('new endpoints that hang, once they hold their share of the slots, do not keep a claim from a proven webhook behind them', async () => {
  const { store } = opened;
  const unprovenSlots = Math.floor(SLOTS * UNPROVEN_SHARE);
  // More than fill the share, and then a whole claim's width of webhooks more, all due before the proven one.
  const hung = Array.from(
    { length: unprovenSlots + CLAIM_WIDTH + 8 },
    (_, i) => `wh_hung_${String(i).padStart(3, '0')}`,
  );
  await accountWithWebhooks(store, 2, ['wh_good']);
  await recordEvent(store, event(2, 'wev_first', { createdAt: T0 }));
  const sent: OutgoingDelivery[] = [];
  const clock = createManualClock(BigInt(T0 + 2 * SECOND) * 1000n);
  const hangIfNew: Send = (request) =>
    request.url.endsWith('/wh_good')
      ? Promise.resolve(ANSWERED)
      : new Promise<SendOutcome>((resolve) => hanging.push(resolve));
  const started = startDispatcher(store, clock, sent, hangIfNew);
  dispatcher = started;
  // Its first answer, written, proves the endpoint healthy.
  await waitFor(
    async () => (await store.deliveries.get('wh_good', deliveryId('wev_first', 'wh_good')))?.state === 'succeeded',
    "the good webhook's first delivery, recorded",
    10_000,
  );

  await accountWithWebhooks(store, 1, hung);
  await recordEvent(store, event(1, 'wev_hung', { createdAt: T0 + 1 }));
  await recordEvent(store, event(2, 'wev_second', { createdAt: T0 + SECOND }));
  started.wake();
  await waitFor(
    () => sent.length === 2 + unprovenSlots,
    "the hung endpoints' share and the good one's delivery",
    10_000,
  );
  const urls = urlsOf(sent);
  expect(urls.filter((url) => url.endsWith('/wh_good'))).toHaveLength(2);
  expect(new Set(urls.filter((url) => url.includes('/wh_hung_'))).size).toBe(unprovenSlots);

  // Each time those requests time out (a second or more on), the share has room again, and the webhooks held for
  // it are looked at again: every new endpoint gets its first request.
  const hungSentTo = () => new Set(urlsOf(sent).filter((url) => url.includes('/wh_hung_'))).size;
  while (hungSentTo() < hung.length) {
    const before = sent.length;
    clock.advanceMillis(1_000);
    for (const answer of hanging.splice(0)) answer(TIMED_OUT);
    await waitFor(() => sent.length > before, 'the next share of the hung endpoints', 10_000);
  }
  expect(sent).toHaveLength(2 + hung.length);
});
