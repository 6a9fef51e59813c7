// The per-account administrative rate limit: 429 with Retry-After, then a five-minute cooldown
// (docs/decisions.md#16-rate-limits).
import { createManualClock } from '../../service/src/core/clock';
import { ACCOUNT_ID, type Harness, startHarness, webhooksPath } from '../support/harness';

const clock = createManualClock();
let h: Harness;
beforeEach(async () => {
  h = await startHarness({ clock, env: { JOBHOOKS_RATE_LIMIT_PER_MINUTE: '5' } });
});
afterEach(async () => {
  await h.close();
});

const list = (token?: string) => h.call('GET', webhooksPath(), token === undefined ? {} : { token });

test('the request over the limit gets 429 with Retry-After: 300 in the envelope', async () => {
  for (let i = 0; i < 5; i += 1) expect((await list()).statusCode).toBe(200);
  const refused = await list();
  expect(refused.statusCode).toBe(429);
  expect(refused.headers['retry-after']).toBe('300');
  expect(refused.json()).toMatchObject({ data: null, status: { code: 429, is_success: false } });
});

test('every request of the account is refused until five minutes have passed, even in a new minute', async () => {
  for (let i = 0; i < 6; i += 1) await list();
  clock.advanceMillis(61_000);
  const stillRefused = await list();
  expect(stillRefused.statusCode).toBe(429);
  expect(stillRefused.headers['retry-after']).toBe('239');
  clock.advanceMillis(239_000);
  expect((await list()).statusCode).toBe(200);
});

test('the window resets each minute while under the limit', async () => {
  for (let i = 0; i < 5; i += 1) await list();
  clock.advanceMillis(60_000);
  for (let i = 0; i < 5; i += 1) expect((await list()).statusCode).toBe(200);
});

test('the limit is per account: another account is unaffected', async () => {
  const other = await h.token('Account Admin', ACCOUNT_ID + 1);
  for (let i = 0; i < 6; i += 1) await list();
  expect((await h.call('GET', webhooksPath(ACCOUNT_ID + 1), { token: other })).statusCode).toBe(200);
});

test('all tokens of one account share its limit', async () => {
  const second = await h.token('Read-Only');
  for (let i = 0; i < 5; i += 1) await list();
  expect((await list(second)).statusCode).toBe(429);
});

test('health checks and the OpenAPI document are not rate limited', async () => {
  for (let i = 0; i < 6; i += 1) await list();
  expect((await h.call('GET', '/healthz', { token: null })).statusCode).toBe(200);
  expect((await h.call('GET', '/api/openapi.json', { token: null })).statusCode).toBe(200);
});

describe('budgets', () => {
  const event = (runId: number) => ({
    event_type: 'job.run.started',
    run: {
      jobId: '42',
      jobName: 'Nightly',
      runId: String(runId),
      environmentId: '5',
      environmentName: 'Prod',
      dbtVersion: '1.9.0',
      projectName: 'Analytics',
      projectId: '3',
      runStatus: 'Running',
      runStatusCode: 3,
      runStatusMessage: 'None',
      runReason: 'Scheduled',
      runStartedAt: '2026-11-21T09:00:00Z',
    },
  });
  const ingest = (token: string, runId: number) =>
    h.call('POST', `/api/v3/accounts/${ACCOUNT_ID}/webhooks/events`, { token, body: event(runId) });

  test("a flood of management requests does not lock out the job runner's events", async () => {
    const runner = await h.token('Job Runner');
    const readOnly = await h.token('Read-Only');
    for (let i = 0; i < 6; i += 1) await list(readOnly);
    expect((await list()).statusCode).toBe(429);
    expect((await ingest(runner, 1)).statusCode).toBe(202);
  });

  test('a flood of events does not lock out the admins, and over its own limit waits only for the minute', async () => {
    await h.close();
    h = await startHarness({
      clock,
      env: { JOBHOOKS_RATE_LIMIT_PER_MINUTE: '5', JOBHOOKS_INGEST_RATE_LIMIT_PER_MINUTE: '3' },
    });
    const runner = await h.token('Job Runner');
    for (let run = 1; run <= 3; run += 1) expect((await ingest(runner, run)).statusCode).toBe(202);
    const refused = await ingest(runner, 4);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await list()).statusCode).toBe(200);
    clock.advanceMillis(60_000);
    expect((await ingest(runner, 5)).statusCode).toBe(202);
  });

  test('answers the server fails (5xx) are not counted', async () => {
    // A store that cannot read (every instance's): every list is a 500, and none of them spends the budget.
    const failing = h.services.map((service) =>
      jest.spyOn(service.store.webhooks, 'list').mockRejectedValue(new Error('disk I/O error')),
    );
    for (let i = 0; i < 8; i += 1) expect((await list()).statusCode).toBe(500);
    for (const spy of failing) spy.mockRestore();
    for (let i = 0; i < 5; i += 1) expect((await list()).statusCode).toBe(200);
  });
});
