// Several service processes on one PostgreSQL database, as an operator runs them behind a load balancer: one
// schema and one first account however many start at once, every (event, webhook) delivered once (twice only
// across a crash), nothing lost to kill -9, a webhook's limits held by the cluster; the rate limit is the
// account's, not each instance's. A token revoked on one instance: token-revocation.test.ts.
import pg from 'pg';
import { request } from 'undici';
import { PG_MIGRATIONS } from '../../service/src/store/postgres/migrations';
import { ADMIN_TOKEN } from '../support/harness';
import { createWebhookAt, deliveredRuns, expectEveryPairDelivered, postEvents } from '../support/burst';
import { instanceEnv, sqlOn, statusOf, withBootstrap as withBootstrapOn } from '../support/cluster-instances';
import { createTestDatabase } from '../support/postgres';
import { type Receiver, startReceiver } from '../support/receiver';
import { type ServiceProcess, startServiceProcess, stopServiceProcesses } from '../support/service-process';
import { sleep, waitFor } from '../support/wait';

let url: string;
let receivers: Receiver[] = [];
beforeEach(async () => {
  url = await createTestDatabase();
});
afterEach(async () => {
  await stopServiceProcesses();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

const env = (extra: Record<string, string> = {}) => instanceEnv(url, extra);
const withBootstrap = (extra: Record<string, string> = {}) => withBootstrapOn(url, extra);
const sql = <R extends pg.QueryResultRow>(text: string) => sqlOn<R>(url, text);

test('three instances started at once on an empty database make one schema, one first account and print one token', async () => {
  const started = await Promise.all([0, 1, 2].map(() => startServiceProcess(env())));
  const printed = started.filter((s) => s.output().includes('It is shown only this once'));
  expect(printed).toHaveLength(1);
  expect(await sql('SELECT id FROM accounts')).toEqual([{ id: 1 }]);
  expect(await sql('SELECT count(*)::int AS n FROM api_tokens')).toEqual([{ n: 1 }]);
  expect(await sql('SELECT version FROM schema_migrations ORDER BY version')).toEqual(
    PG_MIGRATIONS.map(({ version }) => ({ version })),
  );
  const token = /^ {2}(\S+)$/m.exec(printed[0]!.output())![1]!;
  for (const instance of started) expect(await statusOf(instance.baseUrl, token)).toBe(200);
}, 60_000);

const EVENTS = 1_500;

async function twoInstancesAndReceivers(count: number): Promise<{
  instances: ServiceProcess[];
  hooks: Array<{ id: string; hmac_secret: string }>;
}> {
  receivers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      // One slow receiver keeps deliveries in flight at any moment.
      startReceiver((_req, res) =>
        i === 0 ? setTimeout(() => res.writeHead(200).end(), 20) : res.writeHead(200).end(),
      ),
    ),
  );
  const instances = [await startServiceProcess(withBootstrap()), await startServiceProcess(withBootstrap())];
  const hooks = [];
  for (const [i, receiver] of receivers.entries())
    hooks.push(await createWebhookAt(instances[i % 2]!.baseUrl, `${receiver.url}/hook`));
  return { instances, hooks };
}

test(`two instances share ${EVENTS} events to 3 webhooks: every pair delivered exactly once`, async () => {
  const { instances, hooks } = await twoInstancesAndReceivers(3);
  const runIds = Array.from({ length: EVENTS }, (_, i) => `run-${i + 1}`);
  const accepted = await postEvents(
    instances.map((i) => i.baseUrl),
    runIds,
  );
  expect(accepted.size).toBe(EVENTS);
  await waitFor(() => receivers.every((r) => deliveredRuns(r).size === EVENTS), 'every pair delivered', 60_000);
  expect(expectEveryPairDelivered(receivers, runIds, hooks)).toBe(0);
  for (const instance of instances) expect(await instance.signal('SIGTERM')).toBe(0);
}, 120_000);

test('kill -9 of one of two instances in the middle of a burst loses no delivery', async () => {
  const { instances, hooks } = await twoInstancesAndReceivers(3);
  const [victim, survivor] = instances as [ServiceProcess, ServiceProcess];
  const runIds = Array.from({ length: EVENTS }, (_, i) => `run-${i + 1}`);
  // A holder the callback fills: the kill happened during the burst, and the process is gone.
  const kill: { exited: Promise<number | null> | null } = { exited: null };
  const accepted = await postEvents([victim.baseUrl, survivor.baseUrl], runIds, (count) => {
    if (count === Math.floor(EVENTS / 2)) kill.exited ??= victim.signal('SIGKILL');
  });
  expect(kill.exited).not.toBeNull();
  expect(await kill.exited).toBeNull();
  // A client re-posts what was not confirmed, to the instance that is left.
  const resent = runIds.filter((runId) => !accepted.has(runId));
  expect((await postEvents([survivor.baseUrl], resent)).size).toBe(resent.length);
  // The victim's leases run out (15 s) and the survivor sends what it had claimed.
  await waitFor(() => receivers.every((r) => deliveredRuns(r).size === EVENTS), 'every pair delivered', 90_000);
  const duplicates = expectEveryPairDelivered(receivers, runIds, hooks);
  process.stdout.write(`multi-instance kill -9: ${accepted.size} accepted before the kill, ${duplicates} duplicates\n`);
  expect(await survivor.signal('SIGTERM')).toBe(0);
}, 150_000);

/** A receiver that counts the most requests it had open at once; each is answered when `answer` resolves. */
async function countingReceiver(answer: (index: number) => Promise<void>) {
  const counts = { open: 0, mostOpen: 0 };
  let index = 0;
  const receiver = await startReceiver((_req, res) => {
    counts.open += 1;
    counts.mostOpen = Math.max(counts.mostOpen, counts.open);
    void answer(index++).then(() => {
      counts.open -= 1;
      res.writeHead(200).end();
    });
  });
  receivers.push(receiver);
  return { receiver, counts };
}

const runsInOrder = (receiver: Receiver) =>
  receiver.requests.map((r) => (JSON.parse(r.body.toString('utf8')) as { data: { runId: string } }).data.runId);

test("one request at a time per webhook holds across instances, and the webhook's deliveries go oldest first", async () => {
  let release!: () => void;
  const firstHeld = new Promise<void>((resolve) => (release = resolve));
  // The first request is held open while the rest of the events come in through both instances.
  const { receiver, counts } = await countingReceiver((i) => (i === 0 ? firstHeld : sleep(2)));
  const oneAtATime = withBootstrap({ JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT: '1' });
  const instances = [await startServiceProcess(oneAtATime), await startServiceProcess(oneAtATime)];
  await createWebhookAt(instances[0]!.baseUrl, `${receiver.url}/hook`);
  const runIds = Array.from({ length: 30 }, (_, i) => `run-${i + 1}`);
  // One after the other, alternating instances: each event is older than the next.
  for (const [i, runId] of runIds.entries())
    expect((await postEvents([instances[i % 2]!.baseUrl], [runId], undefined, 1)).size).toBe(1);
  await waitFor(() => receiver.requests.length >= 1, 'the first request');
  release();
  await waitFor(() => receiver.requests.length === runIds.length, 'every delivery', 30_000);
  expect(counts.mostOpen).toBe(1);
  expect(runsInOrder(receiver)).toEqual(runIds);
}, 60_000);

test("a webhook's concurrency limit is the cluster's: two instances never send it more at once", async () => {
  const { receiver, counts } = await countingReceiver(() => sleep(20));
  const threeAtATime = withBootstrap({ JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT: '3' });
  const instances = [await startServiceProcess(threeAtATime), await startServiceProcess(threeAtATime)];
  await createWebhookAt(instances[0]!.baseUrl, `${receiver.url}/hook`);
  const runIds = Array.from({ length: 200 }, (_, i) => `run-${i + 1}`);
  expect(
    (
      await postEvents(
        instances.map((i) => i.baseUrl),
        runIds,
      )
    ).size,
  ).toBe(runIds.length);
  await waitFor(() => deliveredRuns(receiver).size === runIds.length, 'every delivery', 30_000);
  // It did reach its limit (the endpoint earns it one healthy answer at a time), and never went past it.
  expect(counts.mostOpen).toBe(3);
}, 60_000);

const statusAndRetryAfter = async (baseUrl: string): Promise<[number, string | undefined]> => {
  const response = await request(`${baseUrl}/v3/accounts/1/webhooks/subscriptions`, {
    headers: { authorization: `Token ${ADMIN_TOKEN}` },
  });
  await response.body.dump();
  const retryAfter = response.headers['retry-after'];
  return [response.statusCode, typeof retryAfter === 'string' ? retryAfter : undefined];
};

test('the management limit and its cooldown hold for the account across instances', async () => {
  const instances = [
    await startServiceProcess(withBootstrap({ JOBHOOKS_RATE_LIMIT_PER_MINUTE: '10' })),
    await startServiceProcess(withBootstrap({ JOBHOOKS_RATE_LIMIT_PER_MINUTE: '10' })),
  ];
  const statuses = [];
  for (let i = 0; i < 16; i += 1) statuses.push((await statusAndRetryAfter(instances[i % 2]!.baseUrl))[0]);
  // Each instance alone would have admitted 8 of its 8 requests.
  expect(statuses).toEqual([...Array<number>(10).fill(200), ...Array<number>(6).fill(429)]);
  // The cooldown was set by whichever instance refused first; both keep it.
  for (const instance of instances) {
    const [status, retryAfter] = await statusAndRetryAfter(instance.baseUrl);
    expect(status).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(290);
  }
}, 60_000);

test('concurrent requests to two instances admit exactly the limit, no more and no fewer', async () => {
  const limit = 25;
  const instances = [
    await startServiceProcess(withBootstrap({ JOBHOOKS_RATE_LIMIT_PER_MINUTE: String(limit) })),
    await startServiceProcess(withBootstrap({ JOBHOOKS_RATE_LIMIT_PER_MINUTE: String(limit) })),
  ];
  const results = await Promise.all(
    Array.from({ length: 60 }, (_, i) => statusAndRetryAfter(instances[i % 2]!.baseUrl)),
  );
  const statuses = results.map(([status]) => status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
  expect(statuses.filter((s) => s === 429)).toHaveLength(60 - limit);
}, 60_000);
