// Operational webhooks (docs/operational-webhooks.md): a webhook archived by its rules makes a webhook.archived
// event that the account's operational endpoint, a real receiver, gets signed by both schemes; an operational
// endpoint that fails makes no event about itself; the dbt-compatible API never shows an operational endpoint.
import { createWebhook, type Harness, startHarness, webhookPath, webhooksPath } from '../support/harness';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine, isGenuineStandard } from '../support/signature';
import { waitFor } from '../support/wait';
import { parseTraceparent } from '../../service/src/core/trace-context';

const ENDPOINTS = '/api/v3/accounts/1/operational-endpoints';
const ALL_TYPES = [
  'webhook.archived',
  'webhook.failing',
  'webhook.circuit_opened',
  'webhook.recovered',
  'delivery.exhausted',
];

let h: Harness;
let gone: Receiver;
let operations: Receiver;
beforeEach(async () => {
  h = await startHarness({
    env: { JOBHOOKS_RETRY_SCHEDULE: '0,0,0,0,0', JOBHOOKS_PUBLIC_URL: 'https://jobhooks.example.com/' },
  });
  gone = await startReceiver(answer(410));
  operations = await startReceiver(answer(200));
});
afterEach(async () => {
  await h.close();
  await gone.close();
  await operations.close();
});

async function createEndpoint(overrides: Record<string, unknown> = {}) {
  const response = await h.call('POST', ENDPOINTS, {
    body: { name: 'On-call', client_url: `${operations.url}/ops`, event_types: ['webhook.archived'], ...overrides },
  });
  expect(response.statusCode).toBe(201);
  return response.json().data as { id: string; hmac_secret: string };
}

const pending = async () =>
  (await h.db.rows<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE state = 'pending'"))[0]!.n;

test("a webhook archived by a 410 sends the account's operational endpoint a webhook.archived it can verify both ways", async () => {
  const endpoint = await createEndpoint();
  const hook = await createWebhook(h, {
    client_url: `${gone.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  await ingest(h, 'job.run.completed', { runId: 'run-1' });

  await waitFor(async () => operations.requests.length === 1, 'the operational event to arrive');
  const [request] = operations.requests;
  expect(isGenuine(endpoint.hmac_secret, request!.body, request!.headers.authorization)).toBe(true);
  expect(isGenuineStandard(endpoint.hmac_secret, request!)).toBe(true);
  expect(isGenuine(hook.hmac_secret, request!.body, request!.headers.authorization)).toBe(false);
  const payload = JSON.parse(request!.body.toString('utf8'));
  expect(payload).toMatchObject({
    type: 'webhook.archived',
    account_id: 1,
    data: {
      webhook: {
        id: hook.id,
        name: hook.name,
        client_url: `${gone.url}/hook`,
        account_identifier: hook.account_identifier,
        ui_url: `https://jobhooks.example.com/ui/#/webhooks/${hook.id}`,
      },
      rule: 'gone',
      reason: 'The endpoint answered 410 Gone',
    },
  });
  expect(payload.id).toMatch(/^wev_/);
  expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
  expect((await h.call('GET', webhookPath(hook.id))).json().data).toMatchObject({ archived: true });

  // The same log and redelivery as a webhook's, under the endpoint's own path.
  await waitFor(async () => (await pending()) === 0, 'the operational delivery to finish');
  const log = (await h.call('GET', `${ENDPOINTS}/${endpoint.id}/deliveries`)).json();
  expect(log.data).toHaveLength(1);
  expect(log.data[0]).toMatchObject({ event_type: 'webhook.archived', success: true });
  const retried = await h.call('POST', `${ENDPOINTS}/${endpoint.id}/deliveries/${log.data[0].delivery_id}/retry`);
  expect(retried.statusCode).toBe(200);
  expect(operations.requests).toHaveLength(2);
  expect(operations.requests[1]!.body.equals(request!.body)).toBe(true);
  // The event's trace, continued by both requests, each with a span of its own.
  const [first, again] = operations.requests.map((r) => parseTraceparent(r.headers.traceparent));
  expect(first).toMatchObject({ sampled: true });
  expect(again!.traceId).toBe(first!.traceId);
  expect(again!.spanId).not.toBe(first!.spanId);
});

test('an endpoint whose circuit opens sends webhook.circuit_opened once, and webhook.recovered when it answers again', async () => {
  const endpoint = await createEndpoint({ event_types: ['webhook.circuit_opened', 'webhook.recovered'] });
  gone.respondWith(answer(500));
  const hook = await createWebhook(h, {
    client_url: `${gone.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  await ingest(h, 'job.run.completed', { runId: 'run-1' });
  await waitFor(async () => operations.requests.length === 1, 'the circuit to open');
  const opened = JSON.parse(operations.requests[0]!.body.toString('utf8'));
  expect(opened).toMatchObject({
    type: 'webhook.circuit_opened',
    data: { webhook: { id: hook.id }, sick_in_a_row: 5 },
  });
  expect(
    isGenuine(endpoint.hmac_secret, operations.requests[0]!.body, operations.requests[0]!.headers.authorization),
  ).toBe(true);
  expect((await h.call('GET', webhookPath(hook.id))).json().data).toMatchObject({ delivery_circuit: 'open' });

  // A person's test send that the endpoint answers closes the circuit for everyone.
  gone.respondWith(answer(200));
  const beforeTest = gone.requests.length;
  expect((await h.call('GET', `${webhookPath(hook.id)}/test`)).json().data).toMatchObject({
    verification_status_code: '200',
  });
  // A test send carries a traceparent too, in a trace of its own.
  expect(parseTraceparent(gone.requests[beforeTest]!.headers.traceparent)).not.toBeNull();
  await waitFor(async () => operations.requests.length === 2, 'the endpoint to recover');
  const recovered = JSON.parse(operations.requests[1]!.body.toString('utf8'));
  expect(recovered).toMatchObject({ type: 'webhook.recovered', data: { webhook: { id: hook.id } } });
  expect(opened.id).not.toBe(recovered.id);
});

test('an operational endpoint that itself fails makes no operational event about itself', async () => {
  // The endpoint wants everything, and answers 410 too: it is archived by its first delivery.
  operations.respondWith(answer(410));
  const endpoint = await createEndpoint({ event_types: ALL_TYPES });
  await createWebhook(h, { client_url: `${gone.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.completed', { runId: 'run-1' });

  await waitFor(async () => operations.requests.length >= 1 && (await pending()) === 0, 'every delivery to finish');
  await new Promise((resolve) => setTimeout(resolve, 500));
  // The webhook's delivery failed for good and archived it: two events, none about the endpoint.
  const events = await h.db.rows<{ event_type: string }>(
    "SELECT event_type FROM events WHERE event_type NOT LIKE 'job.%' ORDER BY event_type",
  );
  expect(events.map((e) => e.event_type)).toEqual(['delivery.exhausted', 'webhook.archived']);
  // One delivery per event: none was made for the endpoint's own failures (the second may have been sent beside the
  // first, before the first's 410 archived the endpoint, as any webhook's attempts in flight may be).
  const [own] = await h.db.rows<{ n: number }>('SELECT count(*) AS n FROM deliveries WHERE webhook_id = ?', [
    endpoint.id,
  ]);
  expect(own!.n).toBe(2);
  expect((await h.call('GET', `${ENDPOINTS}/${endpoint.id}`)).json().data).toMatchObject({
    archived: true,
    archived_reason: 'The endpoint answered 410 Gone',
  });
});

test('the dbt-compatible API neither lists nor finds an operational endpoint', async () => {
  const hook = await createWebhook(h);
  const endpoint = await createEndpoint();
  const list = (await h.call('GET', webhooksPath())).json();
  expect(list.data.map((w: { id: string }) => w.id)).toEqual([hook.id]);
  expect(list.extra.pagination.total_count).toBe(1);
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const response = await h.call(method, webhookPath(endpoint.id), method === 'PUT' ? { body: { name: 'x' } } : {});
    expect([method, response.statusCode]).toEqual([method, method === 'PUT' ? 400 : 404]);
  }
  const own = (await h.call('GET', ENDPOINTS)).json();
  expect(own.data.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
  expect(own.data[0]).not.toHaveProperty('hmac_secret');
  expect((await h.call('GET', `${ENDPOINTS}/${hook.id}`)).statusCode).toBe(404);
});

test('an operational endpoint is refused a job-run event type, and an update replaces its fields', async () => {
  const wrongType = await h.call('POST', ENDPOINTS, {
    body: { name: 'x', client_url: `${operations.url}/ops`, event_types: ['job.run.completed'] },
  });
  expect(wrongType.statusCode).toBe(400);
  expect(wrongType.body).toContain('event_types may contain only webhook.archived');
  const updated = await h.call('PUT', `${ENDPOINTS}/${(await createEndpoint()).id}`, {
    body: { name: 'Renamed', client_url: `${operations.url}/ops`, event_types: ['delivery.exhausted'] },
  });
  expect(updated.json().data).toMatchObject({ name: 'Renamed', event_types: ['delivery.exhausted'] });
});

test('an operational endpoint on a private address is refused as a webhook is, unless the setting allows it', async () => {
  const strict = await startHarness({ env: { JOBHOOKS_ALLOW_PRIVATE_URLS: '0' } });
  try {
    const refused = await strict.call('POST', ENDPOINTS, {
      body: { name: 'x', client_url: 'http://127.0.0.1:9/ops', event_types: ['webhook.archived'] },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ status: { code: 400 } });
    expect(refused.body).toContain('client_url');
  } finally {
    await strict.close();
  }
});

test("access is as for webhooks: read-only tokens read, writers write, another account's token sees nothing", async () => {
  const endpoint = await createEndpoint();
  const readOnly = await h.token('Read-Only');
  expect((await h.call('GET', ENDPOINTS, { token: readOnly })).statusCode).toBe(200);
  const refused = await h.call('POST', ENDPOINTS, {
    token: readOnly,
    body: { name: 'x', client_url: `${operations.url}/ops`, event_types: ['webhook.archived'] },
  });
  expect(refused.statusCode).toBe(403);
  expect((await h.call('DELETE', `${ENDPOINTS}/${endpoint.id}`, { token: readOnly })).statusCode).toBe(403);
  const stranger = await h.token('Account Admin', 2);
  expect((await h.call('GET', ENDPOINTS, { token: stranger })).statusCode).toBe(403);
  expect(
    (await h.call('GET', `/api/v3/accounts/2/operational-endpoints/${endpoint.id}`, { token: stranger })).statusCode,
  ).toBe(404);
});
