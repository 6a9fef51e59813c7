// The example receiver accepts real signed deliveries from the service, refuses forged ones, and handles each
// message (one event for one webhook) once.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import {
  createReceiver,
  type JobRunEvent,
  type SignatureScheme,
  standardWebhooksSecret,
} from '../../examples/receiver/receiver';
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

async function listen(secret: string | string[], events: JobRunEvent[], scheme?: SignatureScheme): Promise<string> {
  server = createReceiver({ secret, ...(scheme ? { scheme } : {}), onEvent: (event) => events.push(event) });
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
      headers: {
        authorization: original.headers.authorization!,
        'webhook-id': String(original.headers['webhook-id']),
        'webhook-timestamp': String(original.headers['webhook-timestamp']),
        'webhook-signature': String(original.headers['webhook-signature']),
      },
    });
    expect(response.statusCode).toBe(204);
    await response.body.dump();
  }
  expect(events).toHaveLength(1);
});

test.each<SignatureScheme>(['standard', 'dbt'])(
  'with the %s scheme, one event sent to two webhooks that share the receiver is handled once for each',
  async (scheme) => {
    const placeholder = await startReceiver();
    const hooks = [];
    for (const name of ['First', 'Second'])
      hooks.push(await createWebhook(h, { name, client_url: placeholder.url, event_types: ['job.run.completed'] }));
    await placeholder.close();
    const events: JobRunEvent[] = [];
    const url = await listen(
      hooks.map((hook) => hook.hmac_secret),
      events,
      scheme,
    );
    for (const hook of hooks)
      await h.call('PUT', webhookPath(hook.id), {
        body: { name: hook.name, client_url: url, event_types: ['job.run.completed'], job_ids: [] },
      });
    await ingest(h, 'job.run.completed', { runId: '888' });
    await waitFor(() => events.length === 2, 'the event handled for each webhook');
    expect(new Set(events.map((event) => event.webhookId))).toEqual(new Set(hooks.map((hook) => hook.id)));
    expect(new Set(events.map((event) => event.eventId)).size).toBe(1);
  },
);

test("with dbt's scheme, a delivery is verified by Authorization alone, as a dbt Cloud receiver does", async () => {
  const placeholder = await startReceiver();
  const hook = await createWebhook(h, { client_url: placeholder.url, event_types: ['job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.completed');
  await waitFor(() => placeholder.requests.length === 1, 'the delivery');
  const original = placeholder.requests[0]!;
  await placeholder.close();

  const url = await listen(hook.hmac_secret, [], 'dbt');
  const send = async (headers: Record<string, string>) => {
    const response = await request(url, { method: 'POST', body: original.body, headers });
    await response.body.dump();
    return response.statusCode;
  };
  expect(await send({ authorization: original.headers.authorization! })).toBe(204);
  expect(await send({ authorization: 'a'.repeat(64) })).toBe(401);
});

test('with the Standard Webhooks scheme, a stale, forged or Authorization-only request is a 401', async () => {
  const secret = 'e'.repeat(64);
  const events: JobRunEvent[] = [];
  const url = await listen(secret, events, 'standard');
  const body = JSON.stringify({ eventId: 'wev_x', eventType: 'job.run.completed', data: { runId: '1' } });
  const signer = new Webhook(standardWebhooksSecret(secret));
  const signedAt = (date: Date) => ({
    'webhook-id': 'wev_x',
    'webhook-timestamp': String(Math.floor(date.getTime() / 1000)),
    'webhook-signature': signer.sign('wev_x', date, body),
  });
  const send = async (headers: Record<string, string>) => {
    const response = await request(url, { method: 'POST', body, headers });
    await response.body.dump();
    return response.statusCode;
  };
  expect(await send(signedAt(new Date(Date.now() - 6 * 60_000)))).toBe(401);
  expect(
    await send({ ...signedAt(new Date()), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` }),
  ).toBe(401);
  expect(await send({ authorization: 'a'.repeat(64) })).toBe(401);
  expect(events).toHaveLength(0);
  expect(await send(signedAt(new Date()))).toBe(204);
  expect(events).toHaveLength(1);
});

test('across a rotation, a dbt-scheme receiver given the new and the old secret verifies every delivery', async () => {
  const placeholder = await startReceiver();
  const hook = await createWebhook(h, { client_url: placeholder.url, event_types: ['job.run.completed'], job_ids: [] });
  await placeholder.close();
  const rotated = (
    await h.call('POST', `${webhookPath(hook.id)}/secret/rotate`, { body: { overlap_seconds: 3600 } })
  ).json().data as { hmac_secret: string };
  const events: JobRunEvent[] = [];
  const url = await listen([rotated.hmac_secret, hook.hmac_secret], events, 'dbt');
  await h.call('PUT', webhookPath(hook.id), {
    body: { name: 'receiver', client_url: url, event_types: ['job.run.completed'], job_ids: [] },
  });
  await ingest(h, 'job.run.completed', { runId: '1' }); // during the overlap: signed with the old secret
  await waitFor(() => events.length === 1, 'the delivery during the overlap');
  await h.call('DELETE', `${webhookPath(hook.id)}/secret/previous`);
  await ingest(h, 'job.run.completed', { runId: '2' }); // after it: signed with the new one
  await waitFor(() => events.length === 2, 'the delivery after the overlap');
  expect(events.map((event) => event.data.runId)).toEqual(['1', '2']);
});
