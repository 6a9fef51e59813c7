// Every attempt carries the Standard Webhooks headers beside dbt's Authorization, keyed from the same hmac_secret,
// and verifies with the Standard Webhooks reference library (an implementation apart from the service's signer):
// a receiver built on either scheme accepts every delivery, and a Standard Webhooks receiver refuses a replay.
import { Webhook } from 'standardwebhooks';
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine, standardHeadersOf, standardWebhooksSecret } from '../support/signature';
import { waitFor } from '../support/wait';

let h: Harness;
let receiver: Receiver;
beforeEach(async () => {
  h = await startHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: '0.05,0.05,0.05,0.05,0.05' } });
  receiver = await startReceiver();
});
afterEach(async () => {
  jest.useRealTimers();
  await h.close();
  await receiver.close();
});

test('every attempt of a delivery verifies with a Standard Webhooks library and with dbt scheme alike', async () => {
  let calls = 0;
  receiver.respondWith((request, response) => {
    calls += 1;
    // Verified as it arrives, at the receiver's own time, as a real receiver does.
    new Webhook(standardWebhooksSecret(hook.hmac_secret)).verify(request.body, standardHeadersOf(request));
    response.writeHead(calls < 3 ? 500 : 200).end();
  });
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const { event_id } = await ingest(h, 'job.run.completed');
  await waitFor(() => receiver.requests.length === 3, 'three attempts');
  const [delivery] = await h.db.rows<{ id: string }>('SELECT id FROM deliveries');

  const standard = new Webhook(standardWebhooksSecret(hook.hmac_secret));
  for (const request of receiver.requests) {
    expect(standard.verify(request.body, standardHeadersOf(request))).toEqual(
      JSON.parse(request.body.toString('utf8')),
    );
    expect(isGenuine(hook.hmac_secret, request.body, request.headers.authorization)).toBe(true);
    // The message is the delivery (this event for this webhook): its id is the same on every attempt.
    expect(request.headers['webhook-id']).toBe(delivery!.id);
    expect(request.headers['x-jobhooks-event-id']).toBe(event_id);
    expect(request.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  }
  // dbt's signature covers only the body: the same on every attempt.
  expect(new Set(receiver.requests.map((request) => request.headers.authorization)).size).toBe(1);
  // Another secret fails both.
  const other = new Webhook(standardWebhooksSecret('f'.repeat(64)));
  expect(() => other.verify(receiver.requests[0]!.body, standardHeadersOf(receiver.requests[0]!))).toThrow(
    'No matching signature found',
  );
  expect(isGenuine('f'.repeat(64), receiver.requests[0]!.body, receiver.requests[0]!.headers.authorization)).toBe(
    false,
  );
});

test('a captured request replayed later is refused by its timestamp; a changed timestamp by its signature', async () => {
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  await ingest(h, 'job.run.completed');
  await waitFor(() => receiver.requests.length === 1, 'the delivery');
  const [captured] = receiver.requests;
  const standard = new Webhook(standardWebhooksSecret(hook.hmac_secret));
  expect(() => standard.verify(captured!.body, standardHeadersOf(captured!))).not.toThrow();

  // Replayed six minutes later: past the five minutes of tolerance a Standard Webhooks receiver allows.
  jest.useFakeTimers({
    now: Date.now() + 6 * 60_000,
    doNotFake: ['setTimeout', 'setImmediate', 'nextTick', 'queueMicrotask'],
  });
  expect(() => standard.verify(captured!.body, standardHeadersOf(captured!))).toThrow('Message timestamp too old');
  jest.useRealTimers();
  // A replay with another timestamp written in does not match the signature.
  const refreshed = {
    ...standardHeadersOf(captured!),
    'webhook-timestamp': String(Number(captured!.headers['webhook-timestamp']) + 1),
  };
  expect(() => standard.verify(captured!.body, refreshed)).toThrow('No matching signature found');
});

test('the test endpoint and a redelivery carry both signatures too', async () => {
  receiver.respondWith(answer(200));
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  expect((await h.call('GET', `${webhookPath(hook.id)}/test`)).statusCode).toBe(200);
  await ingest(h, 'job.run.completed');
  await waitFor(() => receiver.requests.length === 2, 'the delivery');
  // The receiver has it before its result is written (at once on SQLite, a few round trips later on PostgreSQL).
  const loggedDelivery = async () => {
    const log = (await h.call('GET', `${webhookPath(hook.id)}/deliveries`)).json() as {
      data: Array<{ delivery_id: string | null }>;
    };
    return log.data.find((row) => row.delivery_id !== null)?.delivery_id ?? null;
  };
  await waitFor(async () => (await loggedDelivery()) !== null, 'the delivery in the log');
  const deliveryId = (await loggedDelivery())!;
  expect((await h.call('POST', `${webhookPath(hook.id)}/deliveries/${deliveryId}/retry`)).statusCode).toBeLessThan(300);
  await waitFor(() => receiver.requests.length === 3, 'the redelivery');
  const standard = new Webhook(standardWebhooksSecret(hook.hmac_secret));
  for (const request of receiver.requests) {
    expect(() => standard.verify(request.body, standardHeadersOf(request))).not.toThrow();
    expect(isGenuine(hook.hmac_secret, request.body, request.headers.authorization)).toBe(true);
  }
  const [test, delivered, redelivered] = receiver.requests.map((request) => request.headers['webhook-id']);
  // A redelivery is the same message again; a test send is a message of its own (its own event).
  expect(delivered).toBe(deliveryId);
  expect(redelivered).toBe(deliveryId);
  expect(test).toBe(receiver.requests[0]!.headers['x-jobhooks-event-id']);
  expect(test).not.toBe(deliveryId);
});

test('one event sent to two webhooks is two messages: each has its own webhook-id, and the same event id', async () => {
  const first = await createWebhook(h, {
    client_url: `${receiver.url}/first`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const second = await createWebhook(h, {
    name: 'Second',
    client_url: `${receiver.url}/second`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const { event_id } = await ingest(h, 'job.run.completed');
  await waitFor(() => receiver.requests.length === 2, 'both deliveries');
  const deliveries = await h.db.rows<{ id: string; webhook_id: string }>('SELECT id, webhook_id FROM deliveries');
  const deliveryOf = new Map(deliveries.map((d) => [d.webhook_id, d.id]));
  const byPath = new Map(receiver.requests.map((request) => [request.url, request]));
  expect(byPath.get('/first')!.headers['webhook-id']).toBe(deliveryOf.get(first.id));
  expect(byPath.get('/second')!.headers['webhook-id']).toBe(deliveryOf.get(second.id));
  expect(byPath.get('/first')!.headers['webhook-id']).not.toBe(byPath.get('/second')!.headers['webhook-id']);
  for (const request of receiver.requests) expect(request.headers['x-jobhooks-event-id']).toBe(event_id);
  // Each signature covers its own message id, so each verifies with its own webhook's secret only.
  expect(() =>
    new Webhook(standardWebhooksSecret(first.hmac_secret)).verify(
      byPath.get('/first')!.body,
      standardHeadersOf(byPath.get('/first')!),
    ),
  ).not.toThrow();
  expect(() =>
    new Webhook(standardWebhooksSecret(second.hmac_secret)).verify(
      byPath.get('/second')!.body,
      standardHeadersOf(byPath.get('/second')!),
    ),
  ).not.toThrow();
});
