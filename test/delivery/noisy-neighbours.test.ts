// Endpoints that hang or fail cannot delay the deliveries of healthy ones: real receivers on 127.0.0.1, each
// webhook its own port, a service with few request slots so that hung endpoints could fill them all.
import {
  createWebhook,
  type Harness,
  servicesPerHarness,
  startHarness,
  validCreateBody,
  webhookPath,
} from '../support/harness';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

const EVENTS = 8;
const HUNG = 6;
/** How long the slow but working endpoint takes to answer 2xx. */
const SLOW_MS = 3_000;

let h: Harness;
const receivers: Receiver[] = [];
afterEach(async () => {
  // Closing the receivers first ends the hung requests at once, so the service stops without waiting for them.
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await h.close();
});

async function receiverFor(responder: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const receiver = await startReceiver(responder);
  receivers.push(receiver);
  return receiver;
}

async function webhookAt(receiver: Receiver) {
  return createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
}

const read = async (id: string) => (await h.call('GET', webhookPath(id))).json().data;

/**
 * A service whose retries are an hour apart, and a webhook whose endpoint answers `status` to the `events` it
 * gets until five in a row have opened its circuit; the deliveries past five are held.
 */
async function openCircuit(status: number, events: number) {
  h = await startHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: '3600,3600,3600,3600,3600' } });
  const endpoint = await receiverFor(answer(status));
  const hook = await webhookAt(endpoint);
  for (let run = 1; run <= events; run += 1) await ingest(h, 'job.run.completed', { runId: String(run) });
  await waitFor(async () => (await read(hook.id)).delivery_circuit === 'open', 'the circuit to open');
  return { endpoint, hook };
}

test('beside hung, failing and slow endpoints, a healthy webhook gets every event at once; the slow one gets all of its own', async () => {
  h = await startHarness({
    env: {
      // Fewer slots than the sick endpoints could hold at the configured per-endpoint limit (7 x 4 > 16).
      JOBHOOKS_DELIVERY_CONCURRENCY: '16',
      JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT: '4',
      JOBHOOKS_RETRY_SCHEDULE: '3600,3600,3600,3600,3600',
    },
  });
  const healthy = await receiverFor(answer(200));
  const failing = await receiverFor(answer(500, 'down'));
  let slowOpen = 0;
  let slowMostOpen = 0;
  const slow = await receiverFor((_req, res) => {
    slowOpen += 1;
    slowMostOpen = Math.max(slowMostOpen, slowOpen);
    setTimeout(() => {
      slowOpen -= 1;
      res.writeHead(204).end();
    }, SLOW_MS);
  });
  const hung = await Promise.all(Array.from({ length: HUNG }, () => receiverFor(() => undefined)));
  const healthyHook = await webhookAt(healthy);
  const failingHook = await webhookAt(failing);
  const slowHook = await webhookAt(slow);
  for (const receiver of hung) await webhookAt(receiver);

  const lateness: number[] = [];
  for (let run = 1; run <= EVENTS; run += 1) {
    const before = healthy.requests.length;
    const accepted = Date.now();
    await ingest(h, 'job.run.completed', { runId: String(run) });
    await waitFor(() => healthy.requests.length > before, `the healthy webhook's delivery of run ${run}`, 5_000);
    lateness.push(Date.now() - accepted);
  }
  // Every event reached the healthy webhook while the hung endpoints held their requests open, and none waited
  // for a slot that a slow (3 s) or hung (10 s) request held: the bound leaves room for a loaded CI machine,
  // where an ingest and its delivery have taken 1.1 s, and stays under the slow endpoint's answer.
  expect(healthy.requests).toHaveLength(EVENTS);
  expect(Math.max(...lateness)).toBeLessThan(SLOW_MS - 500);

  // An endpoint not heard from holds one request at a time: the hung ones hold one each, never more.
  for (const receiver of hung) expect(receiver.requests).toHaveLength(1);

  // Five 500s in a row opened the failing endpoint's circuit: its other deliveries wait, with no attempt used.
  await waitFor(() => failing.requests.length === 5, 'five attempts to the failing endpoint');
  await waitFor(async () => (await read(failingHook.id)).delivery_circuit === 'open', 'its circuit to open');
  const open = await read(failingHook.id);
  expect(Number(open.delivery_circuit_open_until)).toBeGreaterThan(Date.now() * 1000);
  expect(open.http_status_code).toBe('500');
  expect(failing.requests).toHaveLength(5);

  // The slow endpoint answers 2xx: that is healthy, so it gets every delivery, more of them at once as it answers.
  await waitFor(() => slow.requests.length === EVENTS, 'every delivery to the slow endpoint', 25_000);
  // ...and, as its answers came, as many at once as its per-endpoint limit allows.
  expect(slowMostOpen).toBe(4);
  expect(await read(slowHook.id)).toMatchObject({ delivery_circuit: 'closed', http_status_code: '204' });
  expect(await read(healthyHook.id)).toMatchObject({ delivery_circuit: 'closed', http_status_code: '200' });
}, 50_000);

test("a person's test send goes out through an open circuit, and its 2xx closes it: the held deliveries follow", async () => {
  const { endpoint: failing, hook } = await openCircuit(503, 7);
  expect(failing.requests).toHaveLength(5);

  failing.respondWith(answer(200, 'back'));
  const tested = await h.call('GET', `${webhookPath(hook.id)}/test`);
  expect(tested.json().data).toEqual({ verification_error: null, verification_status_code: '200' });
  expect((await read(hook.id)).delivery_circuit).toBe('closed');
  // The two deliveries the circuit held back go now, with their first attempt; the five that failed wait for
  // their retry in an hour.
  await waitFor(() => failing.requests.length === 5 + 1 + 2, 'the held deliveries');
  const held = failing.requests.slice(6);
  expect(held.map((request) => request.headers['x-jobhooks-attempt'])).toEqual(['1', '1']);
}, 20_000);

test('more hung endpoints than request slots hold only their share of them: a webhook that answers is never starved', async () => {
  h = await startHarness({
    env: { JOBHOOKS_DELIVERY_CONCURRENCY: '10', JOBHOOKS_RETRY_SCHEDULE: '3600,3600,3600,3600,3600' },
  });
  const healthy = await receiverFor(answer(200));
  await webhookAt(healthy);
  await ingest(h, 'job.run.completed', { runId: 'before' });
  await waitFor(() => healthy.requests.length === 1, 'the first delivery');
  // Endpoints appear that accept connections and never answer: more than the ten slots of every instance.
  const hung = await Promise.all(Array.from({ length: 12 * servicesPerHarness() }, () => receiverFor(() => undefined)));
  for (const receiver of hung) await webhookAt(receiver);

  for (let run = 1; run <= EVENTS; run += 1) {
    const accepted = Date.now();
    await ingest(h, 'job.run.completed', { runId: String(run) });
    await waitFor(() => healthy.requests.length === run + 1, `the healthy webhook's delivery of run ${run}`, 5_000);
    // Well under the 10 s a hung request holds its slot (see the bound above).
    expect(Date.now() - accepted).toBeLessThan(2_500);
  }
  // Endpoints not proven healthy may hold seven eighths of the ten slots: eight; two stay for the healthy one.
  // Request slots are each instance's own (they bound its sockets and memory): eight on each.
  const heldByHung = hung.reduce((sum, receiver) => sum + receiver.requests.length, 0);
  expect(heldByHung).toBe(8 * servicesPerHarness());
}, 30_000);

test('a new client_url starts with a closed circuit: what was learnt of the old endpoint does not hold the new one back', async () => {
  const { endpoint, hook } = await openCircuit(503, 7);
  // Every answer of the old endpoint recorded first: a result written after the move is a former endpoint's, and
  // its delivery would go to the new one at once too (results-plan.ts), besides the two the circuit held.
  const logged = async () => (await h.call('GET', `${webhookPath(hook.id)}/deliveries`)).json().data.length as number;
  await waitFor(async () => (await logged()) === endpoint.requests.length, "the old endpoint's answers to be logged");

  const moved = await receiverFor(answer(200));
  const put = await h.call('PUT', webhookPath(hook.id), {
    body: validCreateBody({ client_url: `${moved.url}/hook`, event_types: ['job.run.completed'], job_ids: [] }),
  });
  expect(put.statusCode).toBe(200);
  expect((await read(hook.id)).delivery_circuit).toBe('closed');
  // The two deliveries the old endpoint's circuit held go to the new endpoint at once.
  await waitFor(() => moved.requests.length === 2, 'the held deliveries at the new endpoint');
}, 20_000);

test("a person's redelivery goes out through an open circuit, and its 2xx closes it", async () => {
  const { endpoint, hook } = await openCircuit(500, 5);
  // Redelivery is for a finished delivery: one is marked failed as its sixth failed attempt would leave it (its
  // retries are an hour apart here).
  const log = (await h.call('GET', `${webhookPath(hook.id)}/deliveries`)).json().data as Array<{ delivery_id: string }>;
  const deliveryId = log[0]!.delivery_id;
  await h.db.run("UPDATE deliveries SET state = 'failed', next_attempt_at = NULL WHERE id = ?", [deliveryId]);

  endpoint.respondWith(answer(200));
  const retried = await h.call('POST', `${webhookPath(hook.id)}/deliveries/${deliveryId}/retry`);
  expect(retried.json().data).toMatchObject({ success: true, http_status_code: '200' });
  expect((await read(hook.id)).delivery_circuit).toBe('closed');
}, 20_000);
