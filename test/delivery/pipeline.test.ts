// Sending, retrying and recording real deliveries to real receivers on 127.0.0.1 (docs/life-of-a-delivery.md).
import { createManualClock } from '../../service/src/core/clock';
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';
import { sleep, waitFor } from '../support/wait';

const SHORT_SCHEDULE = '0.05,0.05,0.05,0.05,0.05';
/**
 * How long to wait for a delivery whose six attempts all fail: the fifth failure in a row opens the endpoint's
 * circuit for 10 to 12 s before the sixth attempt, which leaves the default 15 s little room on a loaded machine.
 */
const EXHAUSTED_WITHIN_MS = 40_000;
jest.setTimeout(EXHAUSTED_WITHIN_MS + 20_000);

let h: Harness;
let receiver: Receiver;
beforeEach(async () => {
  h = await startHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: SHORT_SCHEDULE } });
  receiver = await startReceiver();
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

const webhook = (path = '/hook', overrides: Record<string, unknown> = {}) =>
  createWebhook(h, {
    client_url: `${receiver.url}${path}`,
    event_types: ['job.run.completed'],
    job_ids: [],
    ...overrides,
  });
const read = async (id: string) => (await h.call('GET', webhookPath(id))).json().data;
const deliveryStates = (h: Harness) =>
  h.db.rows<{ state: string; attempts: number; lease_owner: string | null }>(
    'SELECT state, attempts, lease_owner FROM deliveries',
  );

test('a delivery is a POST of JSON signed with the hex HMAC-SHA256 of the exact body bytes', async () => {
  const hook = await webhook('/signed?source=jobhooks');
  const { event_id } = await ingest(h, 'job.run.completed');
  await waitFor(() => receiver.requests.length === 1, 'the delivery');
  const [request] = receiver.requests;
  expect(request!.method).toBe('POST');
  expect(request!.url).toBe('/signed?source=jobhooks');
  expect(request!.headers['content-type']).toBe('application/json');
  expect(request!.headers.authorization).toMatch(/^[0-9a-f]{64}$/);
  expect(isGenuine(hook.hmac_secret, request!.body, request!.headers.authorization)).toBe(true);
  expect(isGenuine('another secret', request!.body, request!.headers.authorization)).toBe(false);
  expect(request!.headers['user-agent']).toMatch(/^jobhooks\/\d+\.\d+\.\d+$/);
  expect(request!.headers['x-jobhooks-event-id']).toBe(event_id);
  expect(request!.headers['x-jobhooks-attempt']).toBe('1');
});

test('a receiver failing with 500 gets exactly six attempts, each the same signed bytes', async () => {
  receiver.respondWith(answer(500, 'down'));
  const hook = await webhook();
  await ingest(h, 'job.run.completed');
  await waitFor(
    async () => (await deliveryStates(h))[0]?.state === 'failed',
    'the delivery to be exhausted',
    EXHAUSTED_WITHIN_MS,
  );
  await sleep(300);
  expect(receiver.requests).toHaveLength(6);
  expect(receiver.requests.map((r) => r.headers['x-jobhooks-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
  const first = receiver.requests[0]!;
  for (const request of receiver.requests) {
    expect(request.body.equals(first.body)).toBe(true);
    expect(request.headers.authorization).toBe(first.headers.authorization);
    expect(isGenuine(hook.hmac_secret, request.body, request.headers.authorization)).toBe(true);
  }
  expect(await deliveryStates(h)).toEqual([{ state: 'failed', attempts: 6, lease_owner: null }]);
  const state = await read(hook.id);
  expect(state.http_status_code).toBe('500');
  expect(state.dispatched_at).toMatch(/^\d{16}$/);
  expect(state.active).toBe(true);
});

test('a retry that succeeds ends the delivery and the webhook reports 200', async () => {
  let calls = 0;
  receiver.respondWith((_req, res) => res.writeHead(++calls < 3 ? 503 : 200).end());
  const hook = await webhook();
  await ingest(h, 'job.run.completed');
  await waitFor(async () => (await deliveryStates(h))[0]?.state === 'succeeded', 'success on the third attempt');
  expect(receiver.requests).toHaveLength(3);
  expect((await read(hook.id)).http_status_code).toBe('200');
});

test('a 302 is a failure and its target is never requested', async () => {
  receiver.respondWith((req, res) => {
    if (req.url === '/moved') res.writeHead(302, { location: '/target' }).end();
    else res.writeHead(200).end();
  });
  const hook = await webhook('/moved');
  await ingest(h, 'job.run.completed');
  await waitFor(
    async () => (await deliveryStates(h))[0]?.state === 'failed',
    'the delivery to be exhausted',
    EXHAUSTED_WITHIN_MS,
  );
  expect(receiver.requests.map((r) => r.url)).toEqual(Array(6).fill('/moved'));
  expect((await read(hook.id)).http_status_code).toBe('302');
});

test('a 410 archives the webhook at once and is not retried', async () => {
  receiver.respondWith(answer(410));
  const hook = await webhook();
  await ingest(h, 'job.run.completed');
  await waitFor(async () => (await read(hook.id)).archived === true, 'archiving');
  const state = await read(hook.id);
  expect(state).toMatchObject({
    active: false,
    archived: true,
    http_status_code: '410',
    archived_reason: 'The endpoint answered 410 Gone',
  });
  expect(state.archived_at).toMatch(/^\d{16}$/);
  await sleep(300);
  expect(receiver.requests).toHaveLength(1);
});

test('an unreachable endpoint records "599"', async () => {
  const hook = await webhook();
  await receiver.close();
  await ingest(h, 'job.run.completed');
  await waitFor(
    async () => (await deliveryStates(h))[0]?.state === 'failed',
    'the delivery to be exhausted',
    EXHAUSTED_WITHIN_MS,
  );
  expect((await read(hook.id)).http_status_code).toBe('599');
});

test('a webhook deactivated while a retry is pending gets no more requests', async () => {
  await h.close();
  const clock = createManualClock();
  h = await startHarness({ clock, env: { JOBHOOKS_RETRY_SCHEDULE: '60,60,60,60,60' } });
  receiver.respondWith(answer(500));
  const hook = await webhook();
  await ingest(h, 'job.run.completed');
  await waitFor(async () => (await deliveryStates(h))[0]?.attempts === 1, 'the first attempt');
  const put = await h.call('PUT', webhookPath(hook.id), {
    body: { name: 'x', client_url: hook.client_url, event_types: ['job.run.completed'], active: false },
  });
  expect(put.statusCode).toBe(200);
  clock.advanceMillis(61 * 60 * 1000);
  h.service.dispatcher.wake();
  await waitFor(async () => (await deliveryStates(h))[0]?.state === 'skipped', 'the retry to be skipped');
  expect(receiver.requests).toHaveLength(1);
});

test('a receiver that answers 200 after 11 s has failed: the attempt is over at 10 s', async () => {
  await h.close();
  h = await startHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: '3600,3600,3600,3600,3600' } });
  const timers: NodeJS.Timeout[] = [];
  receiver.respondWith((_req, res) => {
    timers.push(setTimeout(() => res.writeHead(200).end('late'), 11_000));
  });
  const hook = await webhook();
  await ingest(h, 'job.run.completed');
  await waitFor(async () => (await read(hook.id)).http_status_code === '599', 'the timeout to be recorded', 20_000);
  const log = (await h.call('GET', `${webhookPath(hook.id)}/deliveries`)).json().data;
  expect(log[0]).toMatchObject({ success: false, http_status_code: '599', error: 'No complete response within 10 s' });
  // The attempt ended at the 10 s limit, before the receiver's 200 at 11 s (timed by the sender, not the test).
  expect(log[0].duration_ms).toBeGreaterThanOrEqual(9_900);
  expect(log[0].duration_ms).toBeLessThan(11_000);
  timers.forEach(clearTimeout);
}, 30_000);

test('a slow endpoint holds at most its share of requests and the others are delivered meanwhile', async () => {
  await h.close();
  h = await startHarness({
    env: { JOBHOOKS_DELIVERY_CONCURRENCY: '4', JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT: '2' },
  });
  const held: Array<() => void> = [];
  let open = 0;
  let mostOpen = 0;
  receiver.respondWith((req, res) => {
    if (req.url !== '/slow') return void res.writeHead(200).end();
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    held.push(() => {
      open -= 1;
      res.writeHead(200).end();
    });
  });
  await webhook('/slow');
  await webhook('/fast');
  for (let run = 1; run <= 10; run += 1) await ingest(h, 'job.run.completed', { runId: String(run) });

  const count = (path: string) => receiver.requests.filter((r) => r.url === path).length;
  await waitFor(() => count('/fast') === 10, 'every delivery to the fast endpoint while the slow one hangs');
  // An endpoint not heard from yet gets one request at a time; each answer allows one more, up to its share.
  expect(count('/slow')).toBe(1);
  expect(mostOpen).toBe(1);

  // Its first answer earns it a second request at once, and no more: wait for the two (on two instances either may
  // send them), then answer everything as it comes.
  held.splice(0).forEach((release) => release());
  await waitFor(() => open >= 2, 'two requests in flight to the slow endpoint once it has answered');
  while (count('/slow') < 10) {
    held.splice(0).forEach((release) => release());
    await sleep(20);
  }
  held.splice(0).forEach((release) => release());
  expect(mostOpen).toBe(2);
});
