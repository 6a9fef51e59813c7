// GET .../webhooks/statistics and .../subscription/{id}/statistics: a real service whose log holds known outcomes
// answers counts, per hour and in all, that equal what its delivery log lists; read-only tokens may read them;
// /metrics shows the same counts and rate.
import { createManualClock, type ManualClock } from '../../service/src/core/clock';
import { DURATION_BOUNDS_MS } from '../../service/src/domain/delivery-stats';
import { ACCOUNT_ID, createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

/** An hour's start, in microseconds (the clock takes nanoseconds). */
const T0 = 1_800_000_000_000_000;
const RUNS = ['1', '2', '3'];

let h: Harness;
let receiver: Receiver;
let clock: ManualClock;
beforeEach(async () => {
  clock = createManualClock(BigInt(T0) * 1000n + 60_000_000_000n);
  h = await startHarness({
    clock,
    env: { JOBHOOKS_RETRY_SCHEDULE: '0,0,0,0,0', JOBHOOKS_METRICS_MAX_AGE_SECONDS: '0' },
  });
  // /ok succeeds; /refused answers 400 (a failure that does not open the circuit), so each delivery fails six
  // times; /sick answers 500 and its circuit opens after five; /gone answers 410 and is archived.
  receiver = await startReceiver((req, res) => {
    const status = { '/ok': 200, '/refused': 400, '/sick': 500, '/gone': 410 }[req.url ?? ''] ?? 404;
    res.writeHead(status).end();
  });
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

interface LogRow {
  requested_at: string;
  duration_ms: number;
  success: boolean;
  delivery_id: string | null;
  attempt: number;
  test: boolean;
}

const hook = (path: string) =>
  createWebhook(h, { client_url: `${receiver.url}${path}`, event_types: ['job.run.completed'], job_ids: [] });
const logOf = async (id: string): Promise<LogRow[]> =>
  (await h.call('GET', `${webhookPath(id)}/deliveries?limit=100`)).json().data;
const accountStats = async (query = '', token?: string) =>
  h.call('GET', `/api/v3/accounts/${ACCOUNT_ID}/webhooks/statistics${query}`, token ? { token } : {});
const webhookStats = async (id: string, query = '', token?: string) =>
  h.call('GET', `${webhookPath(id)}/statistics${query}`, token ? { token } : {});

/** The nearest-rank q-quantile of the log's durations, as the API rounds it: the bound of its bucket. */
function boundOfQuantile(durations: number[], q: number): number | null {
  if (durations.length === 0) return null;
  const exact = [...durations].sort((a, b) => a - b)[Math.ceil(q * durations.length) - 1]!;
  return DURATION_BOUNDS_MS.find((bound) => exact <= bound) ?? DURATION_BOUNDS_MS[DURATION_BOUNDS_MS.length - 1]!;
}

/** What the log says, counted: attempts and finished deliveries by outcome, and response-time percentiles. */
function countedFromLog(rows: LogRow[], finished: { succeeded: number; failed: number }) {
  const attempts = rows.filter((r) => !r.test);
  const succeeded = attempts.filter((r) => r.success).length;
  return {
    attempts_succeeded: succeeded,
    attempts_failed: attempts.length - succeeded,
    deliveries_succeeded: finished.succeeded,
    deliveries_failed: finished.failed,
    p50_ms: boundOfQuantile(
      attempts.map((r) => r.duration_ms),
      0.5,
    ),
    p95_ms: boundOfQuantile(
      attempts.map((r) => r.duration_ms),
      0.95,
    ),
    success_rate: attempts.length === 0 ? null : succeeded / attempts.length,
  };
}

test("the account's and each webhook's counts equal the delivery log's, hour by hour and in all", async () => {
  const ok = await hook('/ok');
  const refused = await hook('/refused');
  for (const runId of RUNS) await ingest(h, 'job.run.completed', { runId });
  // A test send is in the log but is no delivery: it is not counted.
  expect((await h.call('GET', `${webhookPath(ok.id)}/test`)).statusCode).toBe(200);
  await waitFor(async () => (await logOf(refused.id)).length === 6 * RUNS.length, 'every attempt to /refused');
  await waitFor(async () => (await logOf(ok.id)).length === RUNS.length + 1, 'every attempt to /ok');

  const okLog = await logOf(ok.id);
  const refusedLog = await logOf(refused.id);
  // From the log: each /ok delivery's one attempt succeeded; each /refused delivery's sixth attempt failed for good.
  const expectedOk = countedFromLog(okLog, { succeeded: okLog.filter((r) => r.success && !r.test).length, failed: 0 });
  const expectedRefused = countedFromLog(refusedLog, {
    succeeded: 0,
    failed: refusedLog.filter((r) => r.attempt === 6).length,
  });
  expect(expectedOk).toMatchObject({ attempts_succeeded: 3, attempts_failed: 0, deliveries_succeeded: 3 });
  expect(expectedRefused).toMatchObject({ attempts_failed: 18, deliveries_failed: 3, success_rate: 0 });

  const single = (await webhookStats(refused.id)).json().data;
  expect(single.totals).toEqual(expectedRefused);
  expect(single).toMatchObject({
    webhook_id: refused.id,
    window: '24h',
    since: String(T0 - 23 * 3600_000_000),
    until: String(T0 + 3600_000_000),
    bucket_seconds: 3600,
    pending: 0,
    due: 0,
    markers: [],
  });
  // Every hour of the window is there; the attempts are all in the last one, the hour the clock is in.
  expect(single.buckets).toHaveLength(24);
  expect(single.buckets[23]).toEqual({ start: String(T0), ...withoutRate(expectedRefused) });
  for (const bucket of single.buckets.slice(0, 23))
    expect(bucket).toMatchObject({ attempts_succeeded: 0, attempts_failed: 0, p50_ms: null });

  const account = (await accountStats()).json().data;
  const okAttempts = expectedOk.attempts_succeeded;
  expect(account.totals).toMatchObject({
    attempts_succeeded: okAttempts,
    attempts_failed: expectedRefused.attempts_failed,
    deliveries_succeeded: expectedOk.deliveries_succeeded,
    deliveries_failed: expectedRefused.deliveries_failed,
    success_rate: okAttempts / (okAttempts + expectedRefused.attempts_failed),
  });
  // In the order of creation; the two were made at the same instant of the test's clock, so by id then.
  const byId = (a: { webhook_id: string }, b: { webhook_id: string }) => a.webhook_id.localeCompare(b.webhook_id);
  expect(account.webhooks).toEqual(
    [
      {
        webhook_id: ok.id,
        totals: expectedOk,
        trend_succeeded: [...Array(23).fill(0), 3],
        trend_failed: Array(24).fill(0),
        pending: 0,
        due: 0,
        failing_since: null,
      },
      {
        webhook_id: refused.id,
        totals: expectedRefused,
        trend_succeeded: Array(24).fill(0),
        trend_failed: [...Array(23).fill(0), 18],
        pending: 0,
        due: 0,
        // The first failed attempt: the oldest in the log.
        failing_since: refusedLog.map((r) => r.requested_at).sort()[0],
      },
    ].sort(byId),
  );

  // Seven days: 168 hours, the same totals; the hours of the next day still hold them until they leave the window.
  const week = (await webhookStats(refused.id, '?window=7d')).json().data;
  expect(week.buckets).toHaveLength(168);
  expect(week.totals).toEqual(expectedRefused);
  clock.advanceMillis(24 * 3600 * 1000);
  expect((await webhookStats(refused.id)).json().data.totals.attempts_failed).toBe(0);
  expect((await webhookStats(refused.id, '?window=7d')).json().data.totals).toEqual(expectedRefused);

  // /metrics: the same counts, for the whole service, and the rate.
  const metrics = (await h.call('GET', '/metrics', { token: null })).body;
  const series = (name: string) =>
    Number(
      metrics
        .split('\n')
        .find((l) => l.startsWith(`${name} `))
        ?.split(' ')[1],
    );
  expect(series('jobhooks_delivery_attempts_in_window{window="7d",outcome="failed"}')).toBe(18);
  expect(series('jobhooks_delivery_attempts_in_window{window="7d",outcome="succeeded"}')).toBe(3);
  expect(series('jobhooks_deliveries_finished_in_window{window="7d",outcome="failed"}')).toBe(3);
  expect(series('jobhooks_delivery_success_ratio{window="7d"}')).toBeCloseTo(3 / 21);
  expect(series('jobhooks_delivery_attempts_in_window{window="24h",outcome="failed"}')).toBe(0);
  expect(series('jobhooks_delivery_success_ratio{window="24h"}')).toBe(1);

  // Read from the hourly rollup, never from the log itself: with the log's rows gone, the answers stay the same.
  await h.db.run('DELETE FROM delivery_attempts');
  expect((await accountStats('?window=7d')).json().data.totals).toEqual({
    ...expectedRefused,
    attempts_succeeded: okAttempts,
    deliveries_succeeded: expectedOk.deliveries_succeeded,
    p50_ms: expect.any(Number),
    p95_ms: expect.any(Number),
    success_rate: okAttempts / (okAttempts + expectedRefused.attempts_failed),
  });
  expect((await webhookStats(refused.id, '?window=7d')).json().data.totals).toEqual(expectedRefused);
});

function withoutRate<T extends { success_rate: unknown }>(totals: T): Omit<T, 'success_rate'> {
  const { success_rate: _rate, ...rest } = totals;
  return rest;
}

test("a webhook's chart marks when its circuit opened and when it was archived", async () => {
  const sick = await hook('/sick');
  const gone = await hook('/gone');
  await ingest(h, 'job.run.completed', { runId: '1' });
  await waitFor(async () => (await logOf(sick.id)).length === 5, 'five sick answers');
  await waitFor(async () => (await h.call('GET', webhookPath(gone.id))).json().data.archived === true, 'the archive');

  const circuit = (await webhookStats(sick.id)).json().data;
  const sickLog = await logOf(sick.id);
  expect(circuit.markers).toEqual([
    {
      kind: 'circuit_opened',
      // Opened by the fifth answer, as it came in: after the fifth attempt started.
      at: expect.stringMatching(/^\d+$/),
      detail: 'The circuit opened: deliveries are held back',
    },
  ]);
  expect(Number(circuit.markers[0].at)).toBeGreaterThanOrEqual(Number(sickLog[0]!.requested_at));
  // The delivery waits for the circuit: pending, and due (its retry time has come).
  expect(circuit).toMatchObject({ pending: 1, due: 1 });

  const archived = (await h.call('GET', webhookPath(gone.id))).json().data;
  expect((await webhookStats(gone.id)).json().data.markers).toEqual([
    { kind: 'archived', at: archived.archived_at, detail: archived.archived_reason },
  ]);
});

test('read-only tokens may read the statistics; another account, a wrong id and a bad window are refused', async () => {
  const ok = await hook('/ok');
  const readOnly = await h.token('Read-Only');
  expect((await accountStats('', readOnly)).statusCode).toBe(200);
  expect((await webhookStats(ok.id, '?window=7d', readOnly)).statusCode).toBe(200);

  const other = await h.token('Account Admin', 2);
  expect((await accountStats('', other)).statusCode).toBe(403);
  expect((await webhookStats('wsu_00000000000000000000000000')).statusCode).toBe(404);
  const bad = await accountStats('?window=30d');
  expect(bad.statusCode).toBe(400);
  expect(bad.json().status.user_message).toMatch(/window must be 24h or 7d/);
});
