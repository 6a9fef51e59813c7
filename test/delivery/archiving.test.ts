// Automatic archiving by the delivery pipeline (docs/decisions.md#9-failed-deliveries-and-archiving), with real
// receivers and, for the 7-day rule, a fake clock; and reactivation by PUT after a real archiving.
import { createManualClock, type ManualClock, nowMicros } from '../../service/src/core/clock';
import { DEFAULT_HEALTH_RULES } from '../../service/src/delivery/endpoint-health';
import { createWebhook, type Harness, startHarness, webhookPath, validCreateBody } from '../support/harness';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

const DAY_MS = 24 * 3600 * 1000;
/** Retries at once, so an exhausted delivery takes milliseconds, not hours. */
const IMMEDIATE_RETRIES = { JOBHOOKS_RETRY_SCHEDULE: '0,0,0,0,0', JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT: '64' };

let h: Harness;
let receiver: Receiver;
let clock: ManualClock;
beforeEach(async () => {
  clock = createManualClock();
  h = await startHarness({ clock, env: IMMEDIATE_RETRIES });
  // A 4xx fails each attempt but is the receiver's own answer, not a sign of a sick host: the endpoint's
  // circuit stays closed and the attempts follow one another (a 5xx would open it after five).
  receiver = await startReceiver(answer(400));
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

async function failureRecord(id: string) {
  const [row] = await h.db.rows<{ consecutive_failures: number; failing_since: number | null }>(
    'SELECT consecutive_failures, failing_since FROM webhooks WHERE id = ?',
    [id],
  );
  return row!;
}

async function unfinishedDeliveries(): Promise<number> {
  const [row] = await h.db.rows<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE state = 'pending'");
  return row!.n;
}

const read = async (id: string) => (await h.call('GET', webhookPath(id))).json().data;
const webhook = () =>
  createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });

/**
 * The webhook's circuit is open, every request the receiver got has its attempt in the log, and no delivery is
 * leased: nothing is in flight, and nothing more is sent until the circuit's open period ends.
 */
async function settledBehindOpenCircuit(id: string): Promise<boolean> {
  if ((await read(id)).delivery_circuit !== 'open') return false;
  const [row] = await h.db.rows<{ logged: number | string; leased: number | string }>(
    `SELECT (SELECT count(*) FROM delivery_attempts) AS logged,
            (SELECT count(*) FROM deliveries WHERE lease_owner IS NOT NULL) AS leased`,
  );
  return Number(row!.logged) === receiver.requests.length && Number(row!.leased) === 0;
}

let runs = 0;
/** Ingests one event of a new run and waits until its delivery has finished. */
async function deliverOne() {
  runs += 1;
  await ingest(h, 'job.run.completed', { runId: `run-${runs}` });
  await waitFor(async () => (await unfinishedDeliveries()) === 0, `run ${runs} to finish`);
}

test('the 1,000th consecutive failed delivery archives the webhook, not the 999th', async () => {
  const hook = await webhook();
  for (let i = 1; i <= 999; i += 1) await ingest(h, 'job.run.completed', { runId: `run-${i}` });
  await waitFor(async () => (await unfinishedDeliveries()) === 0, '999 deliveries to be exhausted', 60_000);
  expect(receiver.requests).toHaveLength(999 * 6);
  expect((await failureRecord(hook.id)).consecutive_failures).toBe(999);
  expect(await read(hook.id)).toMatchObject({ active: true, archived: false });

  runs = 999;
  await deliverOne();
  expect(await read(hook.id)).toMatchObject({
    active: false,
    archived: true,
    archived_reason: '1000 consecutive deliveries failed',
  });
}, 90_000);

test('a success resets the count of failed deliveries', async () => {
  const hook = await webhook();
  await deliverOne();
  await deliverOne();
  expect(await failureRecord(hook.id)).toMatchObject({ consecutive_failures: 2 });
  receiver.respondWith(answer(200));
  await deliverOne();
  expect(await failureRecord(hook.id)).toEqual({ consecutive_failures: 0, failing_since: null });
});

const HOUR_MS = 3600 * 1000;

/** One failed delivery every 23 hours, `count` times: failing days with no quiet day between them. */
async function failDaily(count: number) {
  for (let i = 0; i < count; i += 1) {
    clock.advanceMillis(23 * HOUR_MS);
    await deliverOne();
  }
}

test('7 consecutive days of failed deliveries archive the webhook', async () => {
  const hook = await webhook();
  await deliverOne();
  await failDaily(7); // 161 hours after the first failure
  expect((await read(hook.id)).archived).toBe(false);
  clock.advanceMillis(7 * HOUR_MS);
  await deliverOne();
  expect(await read(hook.id)).toMatchObject({
    active: false,
    archived: true,
    archived_reason: 'Deliveries have failed for 7 days',
  });
  // The last delivery's first failed attempt archived the webhook; its retries were skipped.
  expect(receiver.requests).toHaveLength(8 * 6 + 1);
});

test('old failures and a quiet week do not archive: the next failure starts the days of failing again', async () => {
  const hook = await webhook();
  await deliverOne();
  clock.advanceMillis(8 * DAY_MS);
  await deliverOne();
  expect((await read(hook.id)).archived).toBe(false);
  // Every attempt of the second delivery was made: none was skipped by an archive.
  expect(receiver.requests).toHaveLength(2 * 6);
  expect(Number((await failureRecord(hook.id)).failing_since)).toBe(nowMicros(clock));
});

test('a success within the 7 days starts the failing period again', async () => {
  const hook = await webhook();
  await deliverOne();
  await failDaily(2);
  receiver.respondWith(answer(204));
  clock.advanceMillis(23 * HOUR_MS);
  await deliverOne();
  receiver.respondWith(answer(400));
  await failDaily(5); // 184 hours after the first failure: over 7 days, but a success came between
  expect((await read(hook.id)).archived).toBe(false);
  await failDaily(4); // 184 hours after the first failure that followed the success
  expect((await read(hook.id)).archived).toBe(true);
});

describe('reactivation after a real archiving', () => {
  async function archivedBy410() {
    receiver.respondWith(answer(410));
    const hook = await webhook();
    await deliverOne();
    expect(await read(hook.id)).toMatchObject({ archived: true, active: false });
    receiver.respondWith(answer(200));
    return hook;
  }

  test('PUT with active true reactivates it, clears the failure record, and events flow again', async () => {
    const hook = await archivedBy410();
    const put = await h.call('PUT', webhookPath(hook.id), {
      body: validCreateBody({
        client_url: hook.client_url,
        event_types: ['job.run.completed'],
        job_ids: [],
        active: true,
      }),
    });
    expect(put.json().data).toMatchObject({ active: true, archived: false });
    expect(await failureRecord(hook.id)).toEqual({ consecutive_failures: 0, failing_since: null });
    const before = receiver.requests.length;
    await deliverOne();
    expect(receiver.requests).toHaveLength(before + 1);
    expect((await read(hook.id)).http_status_code).toBe('200');
  });

  test('PUT with a new client_url reactivates it even with active false', async () => {
    const hook = await archivedBy410();
    const put = await h.call('PUT', webhookPath(hook.id), {
      body: validCreateBody({
        client_url: `${receiver.url}/new`,
        event_types: ['job.run.completed'],
        job_ids: [],
        active: false,
      }),
    });
    expect(put.json().data).toMatchObject({ active: true, archived: false });
    await deliverOne();
    expect(receiver.requests.at(-1)!.url).toBe('/new');
  });

  test('PUT with active false and the same URL leaves it archived, and events are skipped', async () => {
    const hook = await archivedBy410();
    await h.call('PUT', webhookPath(hook.id), {
      body: validCreateBody({
        client_url: hook.client_url,
        event_types: ['job.run.completed'],
        job_ids: [],
        active: false,
      }),
    });
    const before = receiver.requests.length;
    runs += 1;
    const result = await ingest(h, 'job.run.completed', { runId: `run-${runs}` });
    expect(result).toMatchObject({ deliveries: 0, skipped: 1 });
    expect(receiver.requests).toHaveLength(before);
  });
});

test('a dead endpoint behind an open circuit is still archived by the 7-day rule: its probes keep its failure recent', async () => {
  receiver.respondWith(answer(503));
  const hook = await webhook();
  const HOURS_2 = 2 * 3600 * 1000;
  // An event every two hours for up to ten days. Each step lets the service send what is due (the first attempts,
  // until five failures open the circuit; then the one probe its open period allows, whose failure opens it again)
  // and record the results, then moves on. The clock moves only once the circuit is open and nothing is in flight:
  // moved two hours past a probe still waiting for its answer, it would end the probe's lease, and another claim would
  // rightly send that delivery again; moved between an attempt's result and its retry, it would date that retry, and
  // the circuit it opens, in the next step. The count each step waits for is known before it begins, as the
  // dispatcher's poll may send a step's probe as soon as the clock has moved, before the step's event is taken in.
  const OPENING_ATTEMPTS = DEFAULT_HEALTH_RULES.openAfterSickInARow;
  for (let step = 0; step < 120 && !(await read(hook.id)).archived; step += 1) {
    await ingest(h, 'job.run.completed', { runId: `dead-${step}` });
    await waitFor(
      async () => receiver.requests.length >= OPENING_ATTEMPTS + step && (await settledBehindOpenCircuit(hook.id)),
      `step ${step}'s attempts, their results and the circuit open again`,
    );
    clock.advanceMillis(HOURS_2);
  }
  expect(await read(hook.id)).toMatchObject({ archived: true, archived_reason: 'Deliveries have failed for 7 days' });
  // The attempts that opened the circuit, then one probe per step until the one a week after the first failure
  // (84 steps make a week): the deliveries the circuit held used none of their attempts.
  expect(receiver.requests).toHaveLength(OPENING_ATTEMPTS + 84);
  // Archiving skipped every delivery the circuit was holding, in the transaction that archived the webhook. (With
  // two instances, the next step's event may be taken in while that transaction runs, its delivery written pending
  // just after: the claim that reaches it skips it, as the webhook is archived. It is not one the circuit held.)
  const [held] = await h.db.rows<{ n: number | string }>(
    `SELECT count(*) AS n FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.state = 'pending' AND d.created_at < w.archived_at`,
  );
  expect(Number(held!.n)).toBe(0);
}, 90_000);
