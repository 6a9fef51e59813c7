// The delivery log's filters: status, event_type and a time window, combined, with paging and totals that follow.
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

let h: Harness;
let receiver: Receiver;
beforeEach(async () => {
  h = await startHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: '100,100,100,100,100' } });
  // Errored runs get a 400 (a failure that does not make the endpoint sick), the others a 200.
  receiver = await startReceiver((request, response) => {
    response.writeHead(request.body.toString('utf8').includes('"job.run.errored"') ? 400 : 200).end();
  });
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

interface Page {
  data: Array<{ event_type: string; success: boolean; requested_at: string }>;
  extra: { pagination: { total_count: number; count: number } };
}
const log = async (id: string, query: string) =>
  (await h.call('GET', `${webhookPath(id)}/deliveries?${query}`)).json() as Page;

test('status, event_type, since and until filter the attempts, alone and together', async () => {
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed', 'job.run.errored'],
    job_ids: [],
  });
  await ingest(h, 'job.run.completed', { runId: '1' });
  await ingest(h, 'job.run.errored', { runId: '2' });
  await waitFor(() => receiver.requests.length === 2, 'the first two attempts');
  const between = Date.now() * 1000;
  await new Promise((resolve) => setTimeout(resolve, 5));
  await ingest(h, 'job.run.completed', { runId: '3' });
  await waitFor(() => receiver.requests.length === 3, 'the third attempt');
  await waitFor(
    async () => (await log(hook.id, 'limit=100')).extra.pagination.total_count === 3,
    'three logged attempts',
  );

  const failed = await log(hook.id, 'status=failed');
  expect(failed.data.map((row) => [row.event_type, row.success])).toEqual([['job.run.errored', false]]);
  expect((await log(hook.id, 'status=succeeded')).extra.pagination.total_count).toBe(2);
  expect((await log(hook.id, 'event_type=job.run.completed')).extra.pagination.total_count).toBe(2);
  expect((await log(hook.id, `since=${between}`)).extra.pagination.total_count).toBe(1);
  expect((await log(hook.id, `until=${between}`)).extra.pagination.total_count).toBe(2);
  const iso = new Date(between / 1000).toISOString();
  expect((await log(hook.id, `until=${encodeURIComponent(iso)}&status=succeeded`)).data).toHaveLength(1);
  const paged = await log(hook.id, 'status=succeeded&limit=1&offset=1');
  expect([paged.extra.pagination.total_count, paged.extra.pagination.count]).toEqual([2, 1]);
});

test('a filter with a bad value is a 400 that names it', async () => {
  const hook = await createWebhook(h, { client_url: `${receiver.url}/hook` });
  for (const [query, message] of [
    ['status=ok', 'status must be succeeded or failed'],
    ['event_type=job.run.oops', 'event_type must be one of job.run.started, job.run.completed, job.run.errored'],
    ['since=yesterday', 'since must be microseconds since the epoch'],
  ] as const) {
    const response = await h.call('GET', `${webhookPath(hook.id)}/deliveries?${query}`);
    expect(response.statusCode).toBe(400);
    expect(JSON.stringify(response.json())).toContain(message);
  }
});
