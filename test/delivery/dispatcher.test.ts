// The dispatcher's own work per attempt, on a real store of either backend with a stand-in sender: what it does once per
// webhook or once per delivery rather than once per attempt.
import { join } from 'node:path';
import { type Clock, createSystemClock } from '../../service/src/core/clock';
import { cryptoRandomBytes } from '../../service/src/core/random';
import { createHeadersOnlyTracing } from '../../service/src/core/tracing';
import { createDispatcher } from '../../service/src/delivery/dispatcher';
import { DEFAULT_HEALTH_RULES, EndpointHealthRegistry } from '../../service/src/delivery/endpoint-health';
import { ATTEMPT_TIMEOUT_MS, type OutgoingDelivery, type SendOutcome } from '../../service/src/delivery/sender';
import { REPLY_DEADLINE_MS } from '../../service/src/delivery/sender-thread';
import { SHUTDOWN_GRACE_MS } from '../../service/src/wiring';
import { createSecretBox, loadSecretKey } from '../../service/src/security/secret-box';
import type { Store } from '../../service/src/store/store';
import { createWebhook, type Harness, startHarness } from '../support/harness';
import { ingest } from '../support/events';
import { TEST_SECRET_KEY } from '../support/postgres';
import { isGenuine } from '../support/signature';
import { sleep, waitFor } from '../support/wait';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  // The harness's own dispatcher stands down; the test runs one it can watch.
  await h.service.dispatcher.stop(0);
});
afterEach(() => h.close());

/** The harness service's own key: its key file on SQLite, JOBHOOKS_SECRET_KEY on PostgreSQL. */
function secretBoxOf(harness: Harness) {
  const envValue = harness.databaseUrl === null ? undefined : TEST_SECRET_KEY;
  return createSecretBox(
    loadSecretKey({ envValue, keyFile: join(harness.dir, 'secret.key'), random: cryptoRandomBytes }),
    cryptoRandomBytes,
  );
}

const answer = (status: number): SendOutcome => ({
  kind: 'response',
  status,
  durationMs: 1,
  bodyExcerpt: '',
  retryAfter: null,
});

/** A dispatcher on the harness's store (or `options.store`) that sends with `send` and opens secrets with `open`. */
function watchedDispatcher(
  send: (request: OutgoingDelivery) => Promise<SendOutcome>,
  open: (sealed: string) => string,
  clock: Clock = createSystemClock(),
  options: { store?: Store; maxInFlight?: number; retryDelaysSeconds?: number[]; pollIntervalMs?: number } = {},
) {
  const maxInFlight = options.maxInFlight ?? 4;
  return createDispatcher({
    store: options.store ?? h.service.store,
    clock,
    send,
    random: cryptoRandomBytes,
    secretBox: { seal: secretBoxOf(h).seal, open },
    tracing: createHeadersOnlyTracing(cryptoRandomBytes),
    owner: 'test',
    retryDelaysSeconds: options.retryDelaysSeconds ?? [60],
    limits: {
      maxInFlight,
      maxInFlightPerWebhook: maxInFlight,
      leaseMicros: 60_000_000,
      pollIntervalMs: options.pollIntervalMs ?? 10,
    },
    health: new EndpointHealthRegistry({ ...DEFAULT_HEALTH_RULES, maxInFlight }, () => 0, {
      store: (options.store ?? h.service.store).endpointHealth,
      onError: (error) => {
        throw error;
      },
    }),
    onError: (error) => {
      throw error;
    },
  });
}

test("a webhook's secret is decrypted once for all its attempts, and every attempt is still signed with it", async () => {
  const hook = await createWebhook(h, {
    client_url: 'http://127.0.0.1:9/hook',
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  for (let run = 1; run <= 20; run += 1) await ingest(h, 'job.run.completed', { runId: String(run) });
  const box = secretBoxOf(h);
  let opened = 0;
  const sent: OutgoingDelivery[] = [];
  const dispatcher = watchedDispatcher(
    async (request) => (sent.push(request), answer(200)),
    (sealed) => ((opened += 1), box.open(sealed)),
  );
  dispatcher.start();
  try {
    await waitFor(() => sent.length === 20, '20 attempts');
  } finally {
    await dispatcher.stop(1000);
  }
  expect(opened).toBe(1);
  for (const request of sent)
    expect(isGenuine(hook.hmac_secret, request.body, request.headers.authorization!)).toBe(true);
});

test("a retry sends dbt's signature its first attempt stored, and a Standard Webhooks signature of its own time", async () => {
  const hook = await createWebhook(h, {
    client_url: 'http://127.0.0.1:9/hook',
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  await ingest(h, 'job.run.completed', { runId: '1' });
  const box = secretBoxOf(h);
  const sent: OutgoingDelivery[] = [];
  const failing = watchedDispatcher(
    async (request) => (sent.push(request), answer(500)),
    (sealed) => box.open(sealed),
  );
  failing.start();
  try {
    await waitFor(() => sent.length === 1, 'the first attempt');
  } finally {
    await failing.stop(1000);
  }
  const [first] = sent;
  expect(isGenuine(hook.hmac_secret, first!.body, first!.headers.authorization!)).toBe(true);

  // As if the service restarted, after the retry delay.
  const system = createSystemClock();
  const twoMinutesLater: Clock = { nowNanos: () => system.nowNanos() + 120n * 1_000_000_000n };
  const later = watchedDispatcher(
    async (request) => (sent.push(request), answer(200)),
    (sealed) => box.open(sealed),
    twoMinutesLater,
  );
  later.start();
  try {
    await waitFor(() => sent.length === 2, 'the retry');
  } finally {
    await later.stop(1000);
  }
  const retry = sent[1]!;
  expect(retry.headers['x-jobhooks-attempt']).toBe('2');
  expect(retry.body.equals(first!.body)).toBe(true);
  expect(retry.headers.authorization).toBe(first!.headers.authorization);
  // The timestamp is the attempt's, so a captured first attempt cannot pass for the retry.
  const firstTime = Number(first!.headers['webhook-timestamp']);
  expect(Number(retry.headers['webhook-timestamp']) - firstTime).toBeGreaterThanOrEqual(119);
  expect(retry.headers['webhook-signature']).not.toBe(first!.headers['webhook-signature']);
  expect(retry.headers['webhook-id']).toBe(first!.headers['webhook-id']);
});

test('a retry is claimed when it falls due, not at the next poll for due work', async () => {
  await createWebhook(h, { client_url: 'http://127.0.0.1:9/hook', event_types: ['job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.completed', { runId: '1' });
  const box = secretBoxOf(h);
  const sentAt: number[] = [];
  // Two failures, then a success; retries 0.2 s apart, and no poll within the test's time.
  const dispatcher = watchedDispatcher(
    async () => (sentAt.push(performance.now()), answer(sentAt.length < 3 ? 500 : 200)),
    (sealed) => box.open(sealed),
    createSystemClock(),
    { retryDelaysSeconds: [0.2, 0.2], pollIntervalMs: 600_000 },
  );
  dispatcher.start();
  try {
    await waitFor(() => sentAt.length === 3, 'both retries, with no poll to find them', 10_000);
  } finally {
    await dispatcher.stop(1000);
  }
  // Each retry still waited for its delay (the jitter only lengthens it), to within the two clocks' rounding.
  for (const i of [1, 2]) expect(sentAt[i]! - sentAt[i - 1]!).toBeGreaterThanOrEqual(195);
});

test("a request's slot is free for the next request as soon as the endpoint answers, before the result is written", async () => {
  await createWebhook(h, { client_url: 'http://127.0.0.1:9/hook', event_types: ['job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.completed', { runId: '1' });
  await ingest(h, 'job.run.completed', { runId: '2' });
  const store = h.service.store;
  // Writing results waits until the test lets it.
  let letWrite: () => void = () => undefined;
  const writing = new Promise<void>((resolve) => {
    letWrite = resolve;
  });
  let written = 0;
  const heldStore = {
    ...store,
    deliveries: {
      ...store.deliveries,
      recordAttempts: async (...args: Parameters<typeof store.deliveries.recordAttempts>) => {
        await writing;
        const logged = await store.deliveries.recordAttempts(...args);
        written += logged.length;
        return logged;
      },
    },
  };
  const sent: OutgoingDelivery[] = [];
  const box = secretBoxOf(h);
  // One request at a time: the second can only start once the first one's slot is free.
  const dispatcher = watchedDispatcher(
    async (request) => (sent.push(request), answer(200)),
    (sealed) => box.open(sealed),
    createSystemClock(),
    {
      store: heldStore,
      maxInFlight: 1,
    },
  );
  dispatcher.start();
  try {
    await waitFor(() => sent.length === 2, 'the second request while the first result is not yet written', 3000);
    expect(written).toBe(0);
    letWrite();
    await waitFor(() => written === 2, 'both results written');
  } finally {
    letWrite();
    await dispatcher.stop(1000);
  }
});

test('a delivery waiting for a slot is not leased: its lease cannot run out while it waits', async () => {
  await createWebhook(h, { client_url: 'http://127.0.0.1:9/hook', event_types: ['job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.completed', { runId: '1' });
  await ingest(h, 'job.run.completed', { runId: '2' });
  const box = secretBoxOf(h);
  // One slot, held by a request that does not end until the test lets it.
  let answerFirst: () => void = () => undefined;
  const sent: OutgoingDelivery[] = [];
  const dispatcher = watchedDispatcher(
    (request) =>
      new Promise<SendOutcome>((resolve) => {
        sent.push(request);
        answerFirst = () => resolve(answer(200));
      }),
    (sealed) => box.open(sealed),
    createSystemClock(),
    { maxInFlight: 1 },
  );
  dispatcher.start();
  try {
    await waitFor(() => sent.length === 1, 'the first request');
    await sleep(100); // several polls while the slot is taken
    const [{ waiting }] = (await h.db.rows(
      "SELECT count(*) AS waiting FROM deliveries WHERE lease_owner IS NOT NULL AND state = 'pending'",
    )) as [{ waiting: number }];
    // Only the delivery being sent holds a lease; the other waits unleased, still due.
    expect(waiting).toBe(1);
    answerFirst();
    await waitFor(() => sent.length === 2, 'the second request, once the slot is free');
    answerFirst();
  } finally {
    await dispatcher.stop(1000);
  }
});

test("stopped with the service's shutdown grace, it records an attempt the sender answers at its latest", async () => {
  await createWebhook(h, { client_url: 'http://127.0.0.1:9/hook', event_types: ['job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.completed', { runId: '1' });
  const box = secretBoxOf(h);
  let started = false;
  // The sender thread's answer to an attempt to an endpoint that never answers: its loss, just inside the deadline.
  const dispatcher = watchedDispatcher(
    async () => {
      started = true;
      await sleep(REPLY_DEADLINE_MS - 100);
      return { kind: 'no_response', error: 'timeout', durationMs: ATTEMPT_TIMEOUT_MS };
    },
    (sealed) => box.open(sealed),
  );
  dispatcher.start();
  await waitFor(() => started, 'the attempt');
  await dispatcher.stop(SHUTDOWN_GRACE_MS);
  expect(await h.db.rows('SELECT attempts, lease_owner FROM deliveries')).toEqual([{ attempts: 1, lease_owner: null }]);
  expect(await h.db.rows('SELECT status_code FROM delivery_attempts')).toHaveLength(1);
}, 30_000);
