// A webhook's own delivery rate, at a real receiver on 127.0.0.1: no second of its delivery log holds more starts
// than its rate, its deliveries wait their turn without using attempts, an unlimited webhook of the same account is
// not slowed, and on two instances of one PostgreSQL database the rate holds for both together.
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

const RATE = 5;
const EVENTS = 40;
const SECOND_MICROS = 1_000_000;

let h: Harness | undefined;
const receivers: Receiver[] = [];
async function started(): Promise<Harness> {
  h = await startHarness();
  return h;
}
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await h?.close();
  h = undefined;
});

/** A receiver that counts the requests it got. */
async function countingReceiver(): Promise<{ receiver: Receiver; count: () => number }> {
  let count = 0;
  const receiver = await startReceiver((_req, res) => {
    count += 1;
    res.writeHead(204).end();
  });
  receivers.push(receiver);
  return { receiver, count: () => count };
}

/** The most starts in any one-second window [start, start + 1 s) that begins at a start (where the most can be). */
function busiestSecond(startsMicros: readonly number[]): number {
  const sorted = [...startsMicros].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let begin = 0; begin < sorted.length; begin += 1) {
    while (end < sorted.length && sorted[end]! < sorted[begin]! + SECOND_MICROS) end += 1;
    most = Math.max(most, end - begin);
  }
  return most;
}

test('the window count finds the busiest second, whichever start begins it', () => {
  expect(busiestSecond([])).toBe(0);
  expect(busiestSecond([0, 999_999, 1_000_000])).toBe(2);
  expect(busiestSecond([0, 400_000, 1_300_000, 1_350_000, 1_399_999])).toBe(4);
});

test('a webhook limited to 5 requests per second never starts more than 5 in any second of its log, each at its first attempt; its unlimited neighbour is not slowed', async () => {
  const h = await started();
  const limited = await countingReceiver();
  const free = await countingReceiver();
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

  // Ingested through each instance in turn, when there are two: both then claim the limited webhook's deliveries.
  for (let run = 1; run <= EVENTS; run += 1) await ingest(h, 'job.run.completed', { runId: String(run) });
  // The unlimited webhook of the same account gets all of its events long before the limited one has half of its.
  await waitFor(async () => free.count() === EVENTS, 'the unlimited webhook to get every event');
  expect(limited.count()).toBeLessThan(EVENTS / 2);

  const logOf = async () =>
    (await h.call('GET', `${webhookPath(limitedHook.id)}/deliveries?limit=100`)).json().data as Array<{
      attempt: number;
      requested_at: string;
    }>;
  await waitFor(
    async () => (await logOf()).length === EVENTS,
    'every attempt of the limited webhook to be logged',
    30_000,
  );
  const attempts = await logOf();
  // Held deliveries waited without using attempts: each was sent once, and succeeded at its first.
  expect(limited.count()).toBe(EVENTS);
  expect(attempts.map((entry) => entry.attempt)).toEqual(Array(EVENTS).fill(1));
  // The guarantee, on the starts the log records: no second, wherever it begins, holds more than the rate.
  expect(busiestSecond(attempts.map((entry) => Number(entry.requested_at)))).toBeLessThanOrEqual(RATE);
}, 60_000);
