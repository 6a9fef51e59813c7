// A webhook's own delivery rate, at a real receiver on 127.0.0.1: its deliveries wait their turn without using
// attempts, an unlimited webhook of the same account is not slowed, and on two instances of one PostgreSQL database
// the rate holds for both together.
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

const RATE = 5;
const EVENTS = 40;

let h: Harness;
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await h.close();
});

/** A receiver that notes when each request arrived (performance.now(), in ms). */
async function timedReceiver(): Promise<{ receiver: Receiver; arrivals: number[] }> {
  const arrivals: number[] = [];
  const receiver = await startReceiver((_req, res) => {
    arrivals.push(performance.now());
    res.writeHead(204).end();
  });
  receivers.push(receiver);
  return { receiver, arrivals };
}

test('a webhook limited to 5 requests per second gets its 40 events one slot of 200 ms apart, each at its first attempt; its unlimited neighbour is not slowed', async () => {
  h = await startHarness();
  const limited = await timedReceiver();
  const free = await timedReceiver();
  const limitedHook = await createWebhook(h, {
    client_url: `${limited.receiver.url}/hook`,
    event_types: ['job.run.completed'],
    max_requests_per_second: RATE,
  });
  expect(limitedHook.max_requests_per_second).toBe(RATE);
  const freeHook = await createWebhook(h, {
    client_url: `${free.receiver.url}/hook`,
    event_types: ['job.run.completed'],
  });
  expect(freeHook).not.toHaveProperty('max_requests_per_second');

  // Each instance's sender first makes a test request to each endpoint: the rate is about a running sender, and a
  // sender thread still starting would queue the first claims' requests behind its start.
  for (const hook of [limitedHook, freeHook, limitedHook, freeHook]) {
    expect((await h.call('GET', `${webhookPath(hook.id)}/test`)).statusCode).toBe(200);
  }
  limited.arrivals.length = 0;
  free.arrivals.length = 0;
  const started = performance.now();
  for (let run = 1; run <= EVENTS; run += 1) await ingest(h, 'job.run.completed', { runId: String(run) });
  // The unlimited webhook of the same account gets all of its events while the limited one is still sending.
  await waitFor(async () => free.arrivals.length === EVENTS, 'the unlimited webhook to get every event');
  const freeDoneMs = performance.now() - started;
  expect(limited.arrivals.length).toBeLessThan(EVENTS);
  expect(freeDoneMs).toBeLessThan(((EVENTS - 1) / RATE) * 1000);

  await waitFor(async () => limited.arrivals.length === EVENTS, 'the limited webhook to get every event', 30_000);
  // Claims are spaced 200 ms apart, so the last of 40 arrives no sooner than 39 slots after the first could start.
  // A request starts a little after its claim, by a delay that varies with the machine's load, so starts are not
  // yet held to a strict window of one second: that needs the pacing to follow actual starts.
  const log = (await h.call('GET', `${webhookPath(limitedHook.id)}/deliveries?limit=100`)).json();
  const attempts = (log.data as Array<{ attempt: number; requested_at: string; test: boolean }>).filter(
    (entry) => !entry.test,
  );
  expect(Math.max(...limited.arrivals) - started).toBeGreaterThanOrEqual(((EVENTS - 1) / RATE) * 1000);
  // Held deliveries waited without using attempts: every one succeeded at its first.
  expect(attempts.map((entry) => entry.attempt)).toEqual(Array(EVENTS).fill(1));
}, 60_000);
