// GET /metrics: Prometheus text with attempts by outcome, attempt latency and wait, due and in-flight deliveries, open
// circuits, archived webhooks.
import { createManualClock, type ManualClock } from '../../service/src/core/clock';
import { createWebhook, type Harness, startHarness } from '../support/harness';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

let h: Harness;
let receiver: Receiver;
let clock: ManualClock;
beforeEach(async () => {
  clock = createManualClock();
  // Every scrape counts the backlog anew: the manual clock would otherwise keep a shared count forever.
  h = await startHarness({
    clock,
    env: { JOBHOOKS_RETRY_SCHEDULE: '60,60,60,60,60', JOBHOOKS_METRICS_MAX_AGE_SECONDS: '0' },
  });
  receiver = await startReceiver();
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

async function metrics(): Promise<string> {
  const response = await h.call('GET', '/metrics', { token: null });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

test('attempts are counted by outcome and timed; archived webhooks and due deliveries are gauged', async () => {
  const ok = await createWebhook(h, {
    client_url: `${receiver.url}/ok`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const failing = await createWebhook(h, {
    client_url: `${receiver.url}/fail`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  await createWebhook(h, { client_url: `${receiver.url}/gone`, event_types: ['job.run.completed'], job_ids: [] });
  receiver.respondWith((req, res) => res.writeHead(req.url === '/ok' ? 200 : req.url === '/fail' ? 500 : 410).end());
  await ingest(h, 'job.run.completed');
  // The receiver seeing a request is not the dispatcher having the answer: wait for the three results.
  await waitFor(
    async () => value(await metrics(), 'jobhooks_delivery_attempt_duration_seconds_count') === 3,
    'three finished attempts',
  );
  await waitFor(async () => value(await metrics(), 'jobhooks_subscriptions_archived') === 1, 'the archived gauge');

  const text = await metrics();
  expect(value(text, 'jobhooks_delivery_attempts_total{outcome="succeeded"}')).toBe(1);
  expect(value(text, 'jobhooks_delivery_attempts_total{outcome="failed_status"}')).toBe(1);
  expect(value(text, 'jobhooks_delivery_attempts_total{outcome="gone"}')).toBe(1);
  expect(value(text, 'jobhooks_delivery_attempt_duration_seconds_count')).toBe(3);
  expect(value(text, 'jobhooks_delivery_attempt_duration_seconds_bucket{le="10"}')).toBe(3);
  expect(value(text, 'jobhooks_deliveries_in_flight')).toBe(0);
  // The failed delivery waits 60 s for its retry; the manual clock has not moved.
  expect(value(text, 'jobhooks_deliveries_due')).toBe(0);
  expect(text).toMatch(/^jobhooks_process_resident_memory_bytes \d+/m);
  expect(text).not.toContain(ok.id);
  expect(text).not.toContain(failing.hmac_secret);
});

test('a queued delivery that no dispatcher has claimed is counted as due', async () => {
  receiver.respondWith(answer(500));
  await createWebhook(h, { client_url: `${receiver.url}/fail`, event_types: ['job.run.completed'], job_ids: [] });
  await h.service.dispatcher.stop(1000);
  await ingest(h, 'job.run.completed');
  expect(value(await metrics(), 'jobhooks_deliveries_due')).toBe(1);
});

test("an endpoint's open circuit is gauged, and each attempt's wait from due to sent is timed", async () => {
  receiver.respondWith(answer(503));
  await createWebhook(h, { client_url: `${receiver.url}/down`, event_types: ['job.run.completed'], job_ids: [] });
  expect(value(await metrics(), 'jobhooks_endpoint_circuit_open')).toBe(0);
  for (let run = 1; run <= 5; run += 1) await ingest(h, 'job.run.completed', { runId: String(run) });
  await waitFor(async () => value(await metrics(), 'jobhooks_endpoint_circuit_open') === 1, 'the open circuit gauge');
  const text = await metrics();
  expect(value(text, 'jobhooks_delivery_wait_seconds_count')).toBe(5);
  // The manual clock stands still: every attempt went out the moment it came due.
  expect(value(text, 'jobhooks_delivery_wait_seconds_bucket{le="0.001"}')).toBe(5);
});

test('an attempt sent later than it came due is timed from its due time', async () => {
  receiver.respondWith(answer(500));
  await createWebhook(h, { client_url: `${receiver.url}/late`, event_types: ['job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.completed');
  await waitFor(async () => value(await metrics(), 'jobhooks_delivery_wait_seconds_count') === 1, 'the first attempt');
  // Its retry comes due 60 to 72 s later (with jitter); the clock moves 100 s: it is sent 28 to 40 s late.
  clock.advanceMillis(100_000);
  await waitFor(async () => value(await metrics(), 'jobhooks_delivery_wait_seconds_count') === 2, 'the retry');
  const text = await metrics();
  expect(value(text, 'jobhooks_delivery_wait_seconds_bucket{le="15"}')).toBe(1);
  expect(value(text, 'jobhooks_delivery_wait_seconds_bucket{le="60"}')).toBe(2);
  const waited = value(text, 'jobhooks_delivery_wait_seconds_sum')!;
  expect(waited).toBeGreaterThanOrEqual(28);
  expect(waited).toBeLessThanOrEqual(40);
});
