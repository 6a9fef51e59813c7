// Several instances on one PostgreSQL database: a claim looks at the 256 webhooks whose due deliveries are oldest.
// When other instances' requests fill every one of them, the dispatcher must still reach the webhooks further down,
// at once rather than never: it leaves the full ones out of the claims that follow.
import { createManualClock } from '../../service/src/core/clock';
import { cryptoRandomBytes } from '../../service/src/core/random';
import { createHeadersOnlyTracing } from '../../service/src/core/tracing';
import { createDispatcher, type Dispatcher } from '../../service/src/delivery/dispatcher';
import { DEFAULT_HEALTH_RULES, EndpointHealthRegistry } from '../../service/src/delivery/endpoint-health';
import type { OutgoingDelivery } from '../../service/src/delivery/sender';
import type { ClaimedDelivery } from '../../service/src/domain/delivery';
import { useSuiteCluster } from '../support/postgres';
import { openTestStore, type TestStore } from '../support/stores';
import { waitFor } from '../support/wait';
import { accountWithWebhooks, claimAll, event, recordEvent, SECOND, T0 } from '../store/contract/fixtures';

useSuiteCluster();

/** One more than a claim looks at. */
const BUSY_WEBHOOKS = 257;

let opened: TestStore;
let dispatcher: Dispatcher | null = null;
beforeEach(async () => {
  opened = await openTestStore('postgres');
});
afterEach(async () => {
  await dispatcher?.stop(1000);
  dispatcher = null;
  await opened.close();
});

test('webhooks that another instance fills do not keep a claim from the webhooks behind them', async () => {
  const { store } = opened;
  const busy = Array.from({ length: BUSY_WEBHOOKS }, (_, i) => `wh_busy_${String(i).padStart(3, '0')}`);
  await accountWithWebhooks(store, 1, busy);
  await accountWithWebhooks(store, 2, ['wh_free']);
  // The other instance has one request in flight to each busy webhook, all their endpoints allow (not heard from
  // yet), and each has an older delivery due than the free webhook's.
  await recordEvent(store, event(1, 'wev_sent_elsewhere', { createdAt: T0 }));
  const elsewhere: ClaimedDelivery[][] = [];
  for (let leased = 0; leased < BUSY_WEBHOOKS;) {
    const claimed = await claimAll(store, T0, { owner: 'instance-b', perWebhook: 1, leaseUntil: T0 + 60 * SECOND });
    expect(claimed.length).toBeGreaterThan(0);
    elsewhere.push(claimed);
    leased += claimed.length;
  }
  await recordEvent(store, event(1, 'wev_waiting', { createdAt: T0 + 1 }));
  await recordEvent(store, event(2, 'wev_free', { createdAt: T0 + SECOND }));

  const sent: OutgoingDelivery[] = [];
  const clock = createManualClock(BigInt(T0 + 2 * SECOND) * 1000n);
  const health = new EndpointHealthRegistry({ ...DEFAULT_HEALTH_RULES, maxInFlight: 16 }, () => 0, {
    store: store.endpointHealth,
    onError: (error) => {
      throw error;
    },
  });
  dispatcher = createDispatcher({
    store,
    clock,
    send: async (request) => {
      sent.push(request);
      return { kind: 'response', status: 200, durationMs: 1, bodyExcerpt: '', retryAfter: null };
    },
    random: cryptoRandomBytes,
    secretBox: { seal: (secret) => secret, open: (sealed) => sealed },
    tracing: createHeadersOnlyTracing(cryptoRandomBytes),
    owner: 'instance-a',
    retryDelaysSeconds: [60],
    // No poll in the test's time: what it sends, the claims of its first turns sent.
    limits: { maxInFlight: 64, maxInFlightPerWebhook: 16, leaseMicros: 60 * SECOND, pollIntervalMs: 60_000 },
    health,
    onError: (error) => {
      throw error;
    },
  });
  dispatcher.start();
  dispatcher.wake();

  await waitFor(() => sent.length > 0, "the free webhook's delivery", 10_000);
  expect(sent.map((request) => request.url)).toEqual(['http://127.0.0.1:9/wh_free']);

  // The other instance's requests end; a second later the busy webhooks are looked at again, and get theirs.
  for (const claimed of elsewhere) await store.deliveries.skip(claimed, claimed[0]!.lease, T0 + 2 * SECOND);
  clock.advanceMillis(1000);
  dispatcher.wake();
  await waitFor(() => sent.length === 1 + BUSY_WEBHOOKS, "every busy webhook's waiting delivery", 10_000);
  expect(new Set(sent.map((request) => request.url)).size).toBe(1 + BUSY_WEBHOOKS);
});
