// Recovering failed deliveries after an outage (jobhooks' own endpoint): every failed delivery of a window is
// sent once more, oldest first, by the dispatcher; nothing outside the window, and no retry schedule after it.
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

let h: Harness;
let receiver: Receiver;
beforeEach(async () => {
  h = await startHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: '0.02,0.02,0.02,0.02,0.02' } });
  // 400, not 5xx: a failure that does not make the endpoint sick (its circuit would hold the retries back).
  receiver = await startReceiver(answer(400));
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

const nowMicros = () => String(Date.now() * 1000);
const runIdOf = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { data: { runId: string } }).data.runId;
async function statesByRun(): Promise<Record<string, string>> {
  const rows = await h.db.rows<{ state: string; payload: Buffer; payload_tail: Buffer | null }>(
    `SELECT d.state, d.payload, e.payload_tail
       FROM deliveries d JOIN events e ON e.id = d.event_id ORDER BY d.created_at`,
  );
  return Object.fromEntries(
    rows.map((row) => {
      const payload = Buffer.concat([row.payload, row.payload_tail ?? Buffer.alloc(0)]).toString('utf8');
      return [/"runId":"(\d+)"/.exec(payload)![1]!, row.state];
    }),
  );
}
/** One microsecond after the newest delivery's creation, as the service recorded it. */
async function afterTheLastDelivery(): Promise<string> {
  const [row] = await h.db.rows<{ latest: string | number }>(`SELECT max(created_at) AS latest FROM deliveries`);
  return String(BigInt(row!.latest) + 1n);
}
const recover = (id: string, body: unknown) => h.call('POST', `${webhookPath(id)}/deliveries/recover`, { body });

test('the failed deliveries of the window are sent once more, oldest first; the rest are left alone', async () => {
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  // A second back, as the service's clock may lag this process's: nothing in this new service was made before.
  const before = String((Date.now() - 1000) * 1000);
  for (const runId of ['1', '2', '3']) await ingest(h, 'job.run.completed', { runId });
  await waitFor(
    async () => Object.values(await statesByRun()).filter((state) => state === 'failed').length === 3,
    'three failed deliveries',
  );
  // Between the third delivery and the fourth by the service's own clock, which may lag this process's by up to a
  // millisecond (it reads the wall clock once, then counts monotonic time).
  const between = await afterTheLastDelivery();
  await ingest(h, 'job.run.completed', { runId: '4' });
  await waitFor(async () => (await statesByRun())['4'] === 'failed', 'the fourth to fail');
  const sentBefore = receiver.requests.length;
  expect(sentBefore).toBe(24);

  receiver.respondWith(answer(200));
  const response = await recover(hook.id, { since: before, until: between });
  expect(response.statusCode).toBe(202);
  expect(response.json()).toEqual({ data: { recovered: 3 }, status: { code: 202 } });
  await waitFor(() => receiver.requests.length === sentBefore + 3, 'the three recovered deliveries');
  const recovered = receiver.requests.slice(sentBefore);
  expect(recovered.map((request) => runIdOf(request.body))).toEqual(['1', '2', '3']);
  expect(recovered.map((request) => request.headers['x-jobhooks-attempt'])).toEqual(['7', '7', '7']);
  await waitFor(async () => (await statesByRun())['3'] === 'succeeded', 'the recovered deliveries to be recorded');
  expect(await statesByRun()).toEqual({ '1': 'succeeded', '2': 'succeeded', '3': 'succeeded', '4': 'failed' });
  // Nothing failed in that window any more.
  expect((await recover(hook.id, { since: before, until: between })).json().data).toEqual({ recovered: 0 });

  expect(receiver.requests.length).toBe(sentBefore + 3);
});

test('a recovery with a bad window, of an inactive webhook or with a read-only token changes nothing', async () => {
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const refusals: Array<[unknown, number, string]> = [
    [{}, 400, 'since is required'],
    [{ since: 'yesterday' }, 400, 'since must be microseconds since the epoch (digits) or an RFC 3339 date-time'],
    [{ since: nowMicros(), until: '1' }, 400, 'until must be after since'],
    [null, 400, 'the request body must be a JSON object'],
  ];
  for (const [body, status, message] of refusals) {
    const response =
      body === null
        ? await h.call('POST', `${webhookPath(hook.id)}/deliveries/recover`, {
            rawBody: 'null',
            headers: { 'content-type': 'application/json' },
          })
        : await recover(hook.id, body);
    expect(response.statusCode).toBe(status);
    expect(JSON.stringify(response.json())).toContain(message);
  }
  const readOnly = await h.token('Read-Only');
  expect(
    (await h.call('POST', `${webhookPath(hook.id)}/deliveries/recover`, { token: readOnly, body: { since: '0' } }))
      .statusCode,
  ).toBe(403);
  await h.call('PUT', webhookPath(hook.id), {
    body: { name: 'off', client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], active: false },
  });
  const inactive = await recover(hook.id, { since: '0' });
  expect(inactive.statusCode).toBe(409);
  expect(inactive.json().status.user_message).toContain('archived or inactive');
});

test('once: a recovered delivery that fails again is failed at once, with no new retry schedule', async () => {
  // A 410 fails its delivery at the first attempt (and archives the webhook): five retries would remain.
  receiver.respondWith(answer(410));
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.errored'],
    job_ids: [],
  });
  await ingest(h, 'job.run.errored', { runId: '7' });
  await waitFor(async () => (await statesByRun())['7'] === 'failed', 'the 410 to fail the delivery');
  await h.call('PUT', webhookPath(hook.id), {
    body: { name: 'back', client_url: `${receiver.url}/hook`, event_types: ['job.run.errored'], active: true },
  });
  receiver.respondWith(answer(400));
  expect((await recover(hook.id, { since: '0' })).json().data).toEqual({ recovered: 1 });
  await waitFor(() => receiver.requests.length === 2, 'the one attempt more');
  await waitFor(async () => (await statesByRun())['7'] === 'failed', 'the recovered delivery to fail again');
  expect(receiver.requests.map((request) => request.headers['x-jobhooks-attempt'])).toEqual(['1', '2']);
});
