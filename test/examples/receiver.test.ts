// The example receiver accepts real signed deliveries from the service, refuses forged ones, and handles each event
// once.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { request } from 'undici';
import { createReceiver, type JobRunEvent } from '../../examples/receiver/receiver';
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

let h: Harness;
let server: Server | null = null;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = null;
});

async function listen(secret: string, events: JobRunEvent[]): Promise<string> {
  server = createReceiver({ secret, onEvent: (event) => events.push(event) });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

test('a delivery from the service is verified and handled; the webhook records the success', async () => {
  // The secret is known only after create, so point the webhook at a placeholder first, then at the receiver.
  const placeholder = await startReceiver();
  const hook = await createWebhook(h, { client_url: placeholder.url, event_types: ['job.run.completed'], job_ids: [] });
  await placeholder.close();
  const events: JobRunEvent[] = [];
  const url = await listen(hook.hmac_secret, events);
  await h.call('PUT', webhookPath(hook.id), {
    body: { name: 'receiver', client_url: url, event_types: ['job.run.completed'], job_ids: [] },
  });

  await ingest(h, 'job.run.completed', { runId: '777' });
  await waitFor(() => events.length === 1, 'the event to be handled');
  expect(events[0]).toMatchObject({ eventType: 'job.run.completed', webhookId: hook.id, data: { runId: '777' } });
  await waitFor(
    async () => (await h.call('GET', webhookPath(hook.id))).json().data.http_status_code === '204',
    'the recorded 204',
  );
  expect((await h.call('GET', `${webhookPath(hook.id)}/test`)).json().data).toEqual({
    verification_error: null,
    verification_status_code: '204',
  });
});

test('a forged or unsigned request is a 401 and is not handled', async () => {
  const events: JobRunEvent[] = [];
  const url = await listen('the real secret', events);
  const body = JSON.stringify({ eventId: 'wev_x', eventType: 'job.run.completed', data: { runId: '1' } });
  const forged = await request(url, { method: 'POST', body, headers: { authorization: 'a'.repeat(64) } });
  const unsigned = await request(url, { method: 'POST', body });
  expect([forged.statusCode, unsigned.statusCode]).toEqual([401, 401]);
  await Promise.all([forged.body.dump(), unsigned.body.dump()]);
  expect(events).toHaveLength(0);
});

test('a redelivery of an event already handled is acknowledged but not handled twice', async () => {
  const placeholder = await startReceiver();
  const hook = await createWebhook(h, { client_url: placeholder.url, event_types: ['job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.completed');
  await waitFor(() => placeholder.requests.length === 1, 'the first delivery');
  const original = placeholder.requests[0]!;
  await placeholder.close();

  const events: JobRunEvent[] = [];
  const url = await listen(hook.hmac_secret, events);
  for (let i = 0; i < 2; i += 1) {
    const response = await request(url, {
      method: 'POST',
      body: original.body,
      headers: { authorization: original.headers.authorization! },
    });
    expect(response.statusCode).toBe(204);
    await response.body.dump();
  }
  expect(events).toHaveLength(1);
});
