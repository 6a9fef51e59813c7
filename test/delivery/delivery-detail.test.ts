// One delivery inspected: the request as every attempt sent it (signatures described, not shown) and each attempt
// with the status, headers and body the endpoint answered.
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

let h: Harness;
let receiver: Receiver;
beforeEach(async () => {
  h = await startHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: '0.02,0.02,0.02,0.02,0.02' } });
  let calls = 0;
  receiver = await startReceiver((_request, response) => {
    calls += 1;
    if (calls === 1) response.writeHead(503, { 'x-receiver': 'busy', 'content-type': 'text/plain' }).end('try later');
    else response.writeHead(200, { 'x-receiver': 'ok' }).end('{"ok":true}');
  });
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

interface Detail {
  id: string;
  event_id: string;
  state: string;
  attempts: number;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  attempt_log: Array<{
    attempt: number;
    http_status_code: string;
    response_headers: Record<string, string>;
    response_body: string;
  }>;
}

test('a delivery shows the request as sent and every attempt with the response it got', async () => {
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const { event_id } = await ingest(h, 'job.run.completed');
  await waitFor(() => receiver.requests.length === 2, 'two attempts');
  const list = async () =>
    (await h.call('GET', `${webhookPath(hook.id)}/deliveries`)).json().data as Array<{
      delivery_id: string;
      success: boolean;
    }>;
  await waitFor(async () => (await list()).some((row) => row.success), 'the success to be logged');
  const deliveryId = (await list())[0]!.delivery_id;

  const response = await h.call('GET', `${webhookPath(hook.id)}/deliveries/${deliveryId}`);
  expect(response.statusCode).toBe(200);
  // Through another webhook, or another account, the delivery does not exist.
  const other = await createWebhook(h, { client_url: `${receiver.url}/other` });
  expect((await h.call('GET', `${webhookPath(other.id)}/deliveries/${deliveryId}`)).statusCode).toBe(404);
  const stranger = await h.token('Account Admin', 2);
  const asStranger = await h.call('GET', `${webhookPath(hook.id, 2)}/deliveries/${deliveryId}`, { token: stranger });
  expect(asStranger.statusCode).toBe(404);
  const detail = response.json().data as Detail;
  const sent = receiver.requests[1]!;
  expect(detail).toMatchObject({ id: deliveryId, event_id, state: 'succeeded', attempts: 2 });
  expect(detail.request.method).toBe('POST');
  expect(detail.request.url).toBe(`${receiver.url}/hook`);
  expect(detail.request.body).toBe(sent.body.toString('utf8'));
  for (const name of ['content-type', 'user-agent', 'webhook-id', 'x-jobhooks-event-id'])
    expect(detail.request.headers[name]).toBe(sent.headers[name]);
  // Signatures are described, never shown: a captured dbt signature could be replayed.
  expect(detail.request.headers.authorization).not.toBe(sent.headers.authorization);
  expect(JSON.stringify(detail)).not.toContain(String(sent.headers.authorization));
  expect(JSON.stringify(detail)).not.toContain(String(sent.headers['webhook-signature']).slice(3));
  expect(
    detail.attempt_log.map((row) => [
      row.attempt,
      row.http_status_code,
      row.response_headers['x-receiver'],
      row.response_body,
    ]),
  ).toEqual([
    [1, '503', 'busy', 'try later'],
    [2, '200', 'ok', '{"ok":true}'],
  ]);
});

test('an unknown delivery, or one of another webhook, is a 404', async () => {
  const hook = await createWebhook(h, { client_url: `${receiver.url}/hook` });
  for (const id of ['wdl_01M84ZZ3T1E6F80RHXY173RW68', 'not-an-id']) {
    const response = await h.call('GET', `${webhookPath(hook.id)}/deliveries/${id}`);
    expect(response.statusCode).toBe(404);
    expect(response.json().status.is_success).toBe(false);
  }
});
