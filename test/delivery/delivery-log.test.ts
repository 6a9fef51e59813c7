// The delivery log: contents, order, paging, 7-day purge, manual redelivery, and the test endpoint's entries.
import { createManualClock, type ManualClock } from '../../service/src/core/clock';
import { DEFAULT_HEALTH_RULES, OPEN_JITTER_FRACTION } from '../../service/src/delivery/endpoint-health';
import { createWebhook, type Harness, servicesPerHarness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';
import { waitFor } from '../support/wait';

const DAY_MS = 24 * 3600 * 1000;

let h: Harness;
let receiver: Receiver;
let clock: ManualClock;
beforeEach(async () => {
  clock = createManualClock(1_800_000_000_000_000_000n);
  h = await startHarness({ clock, env: { JOBHOOKS_RETRY_SCHEDULE: '0,0,0,0,0' } });
  receiver = await startReceiver(answer(500, 'down'));
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

const logPath = (id: string, query = '') => `${webhookPath(id)}/deliveries${query}`;
const log = async (id: string, query = '') => (await h.call('GET', logPath(id, query))).json();
const webhook = () =>
  createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
const retry = (id: string, deliveryId: string, token?: string) =>
  h.call('POST', `${logPath(id)}/${deliveryId}/retry`, token ? { token } : {});

async function exhaustedDelivery(runId = '1') {
  const hook = await webhook();
  const { event_id } = await ingest(h, 'job.run.completed', { runId });
  // Five 500s in a row open the endpoint's circuit: the sixth attempt is its probe, sent once the open period
  // (10 s, stretched by up to a fifth) is over on the test's clock. The clock moves once, by less than a lease
  // (60 s): moved on while an attempt's result was still being written, it would end that attempt's lease, and
  // the delivery would be sent again under the same attempt number.
  await waitFor(async () => (await log(hook.id)).extra.pagination.total_count >= 5, 'five logged attempts');
  clock.advanceMillis((DEFAULT_HEALTH_RULES.firstOpenMicros * (1 + OPEN_JITTER_FRACTION)) / 1_000 + 1);
  await waitFor(async () => (await log(hook.id)).extra.pagination.total_count === 6, "the circuit's probe logged");
  return { hook, eventId: event_id, deliveryId: (await log(hook.id)).data[0].delivery_id as string };
}

test('every attempt is logged, newest first, with what the endpoint answered', async () => {
  const { hook, eventId } = await exhaustedDelivery();
  const body = await log(hook.id, '?limit=100');
  expect(body.status).toEqual({ code: 200 });
  expect(body.extra).toEqual({ pagination: { total_count: 6, count: 6 }, filters: { offset: 0, limit: 100 } });
  expect(body.data.map((entry: { attempt: number }) => entry.attempt)).toEqual([6, 5, 4, 3, 2, 1]);
  expect(body.data[0]).toEqual({
    id: expect.stringMatching(/^\d+$/),
    delivery_id: expect.stringMatching(/^wdl_[0-9A-Z]{26}$/),
    event_id: eventId,
    event_type: 'job.run.completed',
    attempt: 6,
    // The sixth attempt was the circuit's probe, at least 10 s (the open period) after the fifth.
    requested_at: expect.stringMatching(/^\d{16}$/),
    duration_ms: expect.any(Number),
    http_status_code: '500',
    success: false,
    error: 'The endpoint answered HTTP 500',
    response_body: 'down',
    response_headers: expect.objectContaining({ connection: 'keep-alive' }),
    test: false,
  });
  // With two instances (docs/operating.md#postgresql-and-several-instances), the other one may still send before
  // the circuit opened by this one's answers reaches it: the probe's delay is checked with one instance.
  if (servicesPerHarness() === 1) {
    const times = body.data.map((entry: { requested_at: string }) => Number(entry.requested_at));
    expect(times[0] - times[1]).toBeGreaterThanOrEqual(10_000_000);
  }
});

test('the log pages like the webhook list', async () => {
  const { hook } = await exhaustedDelivery();
  const page = await log(hook.id, '?offset=1&limit=2');
  expect(page.data.map((entry: { attempt: number }) => entry.attempt)).toEqual([5, 4]);
  expect(page.extra).toEqual({ pagination: { total_count: 6, count: 2 }, filters: { offset: 1, limit: 2 } });
  expect((await h.call('GET', logPath(hook.id, '?limit=101'))).statusCode).toBe(400);
});

test('a response body is kept up to its first 4 KiB', async () => {
  receiver.respondWith(answer(200, 'x'.repeat(10_000)));
  const hook = await webhook();
  await ingest(h, 'job.run.completed');
  await waitFor(async () => (await log(hook.id)).data.length === 1, 'the logged attempt');
  const [entry] = (await log(hook.id)).data;
  expect(entry).toMatchObject({ success: true, error: null, http_status_code: '200' });
  expect(entry.response_body).toBe('x'.repeat(4096));
});

test('entries older than 7 days are purged with their deliveries and events; younger ones stay', async () => {
  // A 4xx fails every attempt without opening the endpoint's circuit, so all six go at once and the times
  // below are exact.
  receiver.respondWith(answer(400, 'down'));
  const hook = await webhook();
  await ingest(h, 'job.run.completed', { runId: 'old' });
  await waitFor(async () => (await log(hook.id)).extra.pagination.total_count === 6, 'the old delivery');
  clock.advanceMillis(6 * DAY_MS);
  await ingest(h, 'job.run.completed', { runId: 'young' });
  await waitFor(async () => (await log(hook.id)).extra.pagination.total_count === 12, 'the young delivery');

  clock.advanceMillis(DAY_MS - 1000);
  expect(await h.service.retention.purge()).toEqual({ attempts: 0, deliveries: 0, events: 0, hours: 0 });
  clock.advanceMillis(2000);
  // The old attempts' hour of the statistics rollup is kept until the whole hour is older than 7 days.
  expect(await h.service.retention.purge()).toEqual({ attempts: 6, deliveries: 1, events: 1, hours: 0 });
  const left = (await log(hook.id, '?limit=100')).data;
  expect(left).toHaveLength(6);
  // The young run is still known, so a repeat of it is still a duplicate; the old one is forgotten.
  expect((await ingest(h, 'job.run.completed', { runId: 'young' })).duplicate).toBe(true);
  expect((await ingest(h, 'job.run.completed', { runId: 'old' })).duplicate).toBe(false);
  clock.advanceMillis(3600 * 1000);
  expect(await h.service.retention.purge()).toEqual({ attempts: 0, deliveries: 0, events: 0, hours: 1 });
});

describe('redelivery', () => {
  test('sends a finished delivery again with its original signed bytes and logs the next attempt', async () => {
    const { hook, deliveryId } = await exhaustedDelivery();
    receiver.respondWith(answer(200, 'thanks'));
    const response = await retry(hook.id, deliveryId);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      delivery_id: deliveryId,
      attempt: 7,
      success: true,
      http_status_code: '200',
      response_body: 'thanks',
    });
    expect(receiver.requests).toHaveLength(7);
    const [first, last] = [receiver.requests[0]!, receiver.requests[6]!];
    expect(last.body.equals(first.body)).toBe(true);
    expect(isGenuine(hook.hmac_secret, last.body, last.headers.authorization)).toBe(true);
    expect(last.headers['x-jobhooks-attempt']).toBe('7');
    expect((await log(hook.id)).extra.pagination.total_count).toBe(7);
    expect((await h.call('GET', webhookPath(hook.id))).json().data.http_status_code).toBe('200');
  });

  test('a failed redelivery is logged and does not archive or count', async () => {
    const { hook, deliveryId } = await exhaustedDelivery();
    const response = await retry(hook.id, deliveryId);
    expect(response.json().data).toMatchObject({ attempt: 7, success: false, http_status_code: '500' });
    expect((await h.call('GET', webhookPath(hook.id))).json().data).toMatchObject({ archived: false });
    const record = await h.service.store.webhooks.get(1, hook.id);
    expect(record).toMatchObject({ consecutiveFailures: 1 });
  });

  test('a delivery still being retried is a 409', async () => {
    await h.close();
    h = await startHarness({ clock, env: { JOBHOOKS_RETRY_SCHEDULE: '60,60,60,60,60' } });
    const hook = await webhook();
    await ingest(h, 'job.run.completed');
    await waitFor(async () => (await log(hook.id)).data.length === 1, 'the first attempt');
    const deliveryId = (await log(hook.id)).data[0].delivery_id;
    const response = await retry(hook.id, deliveryId);
    expect(response.statusCode).toBe(409);
    expect(response.json().status.user_message).toMatch(/still scheduled/);
  });

  test('an archived webhook is a 409 and nothing is sent', async () => {
    receiver.respondWith(answer(410));
    const hook = await webhook();
    await ingest(h, 'job.run.completed');
    await waitFor(async () => (await log(hook.id)).data.length === 1, 'the 410');
    const deliveryId = (await log(hook.id)).data[0].delivery_id;
    const response = await retry(hook.id, deliveryId);
    expect(response.statusCode).toBe(409);
    expect(response.json().status.user_message).toMatch(/archived/);
    expect(receiver.requests).toHaveLength(1);
  });

  test('unknown, malformed and foreign delivery ids are 404s, and a read-only token may read but not redeliver', async () => {
    const { hook, deliveryId } = await exhaustedDelivery();
    expect((await retry(hook.id, 'wdl_01HZZZZZZZZZZZZZZZZZZZZZZZ')).statusCode).toBe(404);
    expect((await retry(hook.id, 'not-an-id')).statusCode).toBe(404);
    const other = await createWebhook(h, { client_url: `${receiver.url}/other` });
    expect((await retry(other.id, deliveryId)).statusCode).toBe(404);

    const readOnly = await h.token('Read-Only');
    expect((await h.call('GET', logPath(hook.id), { token: readOnly })).statusCode).toBe(200);
    expect((await retry(hook.id, deliveryId, readOnly)).statusCode).toBe(403);
  });
});

test("another account's webhook log is a 404 through one's own path and a 403 through theirs", async () => {
  const { hook } = await exhaustedDelivery();
  const stranger = await h.token('Account Admin', 2);
  expect((await h.call('GET', logPath(hook.id), { token: stranger })).statusCode).toBe(403);
  expect(
    (await h.call('GET', `/api/v3/accounts/2/webhooks/subscription/${hook.id}/deliveries`, { token: stranger }))
      .statusCode,
  ).toBe(404);
});

describe('test endpoint entries', () => {
  const runTest = (id: string) => h.call('GET', `${webhookPath(id)}/test`);

  test.each([
    ['a 200 endpoint', 200, null, '200', true],
    ['a 500 endpoint', 500, 'The endpoint answered HTTP 500', '500', false],
  ] as const)(
    '%s is logged as a test attempt and leaves the webhook status alone',
    async (_name, status, error, code, success) => {
      receiver.respondWith(answer(status, 'reply'));
      const hook = await webhook();
      const result = (await runTest(hook.id)).json().data;
      expect(result).toEqual({ verification_error: error, verification_status_code: code });
      const [entry] = (await log(hook.id)).data;
      expect(entry).toMatchObject({
        test: true,
        delivery_id: null,
        attempt: 1,
        event_type: 'job.run.completed',
        success,
        error,
        http_status_code: code,
      });
      expect(entry.event_id).toBe(JSON.parse(receiver.requests[0]!.body.toString('utf8')).eventId);
      expect((await h.call('GET', webhookPath(hook.id))).json().data.http_status_code).toBe('0');
    },
  );

  test('a test that gets a 410 does not archive the webhook', async () => {
    receiver.respondWith(answer(410));
    const hook = await webhook();
    await runTest(hook.id);
    expect((await h.call('GET', webhookPath(hook.id))).json().data.archived).toBe(false);
  });
});
