// A webhook moved to another client_url while a request to the former one is out: the former endpoint's answer is
// logged, and changes nothing of the webhook. A 410 from an endpoint being retired must not archive the webhook
// that was just moved away from it, nor end the delivery: the new endpoint gets it.
import { createWebhook, type Harness, startHarness, validCreateBody, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { answer, type Receiver, type ReceivedRequest, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';
import type { ServerResponse } from 'node:http';

let h: Harness;
let former: Receiver;
let current: Receiver;
/** The former endpoint's answers, held until the test lets them go. */
const held: ServerResponse[] = [];
beforeEach(async () => {
  h = await startHarness();
  held.length = 0;
  former = await startReceiver((_request: ReceivedRequest, response) => void held.push(response));
  current = await startReceiver(answer(200, 'ok'));
});
afterEach(async () => {
  await h.close();
  await former.close();
  await current.close();
});

const read = async (id: string) => (await h.call('GET', webhookPath(id))).json().data;

test('a 410 from the former endpoint, after the webhook moved, neither archives it nor ends the delivery', async () => {
  const hook = await createWebhook(h, { client_url: `${former.url}/hook`, event_types: ['job.run.completed'] });
  await ingest(h, 'job.run.completed', { runId: 'moved-1' });
  await waitFor(() => held.length === 1, 'the request to the former endpoint');

  const moved = await h.call('PUT', webhookPath(hook.id), {
    body: validCreateBody({ client_url: `${current.url}/hook`, event_types: ['job.run.completed'] }),
  });
  expect(moved.statusCode).toBe(200);
  held[0]!.writeHead(410).end('retired');

  await waitFor(() => current.requests.length === 1, 'the delivery at the endpoint the webhook has now');
  const logOf = async () =>
    (await h.call('GET', `${webhookPath(hook.id)}/deliveries`)).json().data as Array<{
      attempt: number;
      http_status_code: string;
    }>;
  await waitFor(async () => (await logOf()).length === 2, 'both attempts to be logged');
  const webhook = await read(hook.id);
  expect(webhook).toMatchObject({ active: true, archived: false, http_status_code: '200' });
  expect(webhook.archived_at).toBeUndefined();
  const log = await logOf();
  // Both attempts are in the log: the former endpoint's 410 happened, and counted as the first attempt.
  expect(log.map((entry) => [entry.attempt, entry.http_status_code])).toEqual([
    [2, '200'],
    [1, '410'],
  ]);
  const [delivery] = await h.db.rows<{ state: string }>('SELECT state FROM deliveries WHERE webhook_id = ?', [hook.id]);
  expect(delivery!.state).toBe('succeeded');
});
