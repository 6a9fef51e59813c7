// A receiver's answer cannot break the pipeline: whatever bytes come back (a NUL, invalid UTF-8, headers of any
// size), every attempt is recorded, a delivery gets exactly its scheduled attempts, and the results of the other
// webhooks written in the same batches are all there. Runs on SQLite, PostgreSQL, and two instances of one
// PostgreSQL database.
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { plainAnswer, type RawReceiver, startRawReceiver } from '../support/raw-receiver';
import { REFUSAL, refuseLogRowsContaining } from '../support/refused-rows';
import { sleep, waitFor } from '../support/wait';

const SHORT_SCHEDULE = '0.05,0.05,0.05,0.05,0.05';
/** A delivery that fails six times waits 10 to 12 s for its endpoint's circuit before the sixth attempt. */
jest.setTimeout(60_000);
const NUL_BODY = Buffer.from('before\u0000after');
/** Healthy webhooks beside the one under test: their results share batches with its results. */
const NEIGHBOURS = 4;

interface AttemptView {
  delivery_id: string | null;
  attempt: number;
  http_status_code: string;
  success: boolean;
  error: string | null;
  response_body: string;
  response_headers: Record<string, string>;
}

let h: Harness;
const receivers: RawReceiver[] = [];
beforeEach(async () => {
  h = await startHarness({
    env: { JOBHOOKS_RETRY_SCHEDULE: SHORT_SCHEDULE, JOBHOOKS_MASKED_RESPONSE_HEADERS: 'x-api-key' },
  });
});
afterEach(async () => {
  await h.close();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function webhookAnswering(answer: Parameters<typeof startRawReceiver>[0], name = 'Under test') {
  const receiver = await startRawReceiver(answer);
  receivers.push(receiver);
  const hook = await createWebhook(h, {
    name,
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  return { receiver, hook };
}

const neighbours = () =>
  Promise.all(
    Array.from({ length: NEIGHBOURS }, (_, i) => webhookAnswering(() => plainAnswer(200, 'ok'), `Neighbour ${i}`)),
  );

const logOf = async (webhookId: string, token?: string): Promise<AttemptView[]> =>
  (await h.call('GET', `${webhookPath(webhookId)}/deliveries?limit=100`, token ? { token } : {})).json().data;

const deliveriesOf = (webhookId: string) =>
  h.db.rows<{ id: string; state: string; attempts: number; lease_owner: string | null }>(
    'SELECT id, state, attempts, lease_owner FROM deliveries WHERE webhook_id = ?',
    [webhookId],
  );

/** Waits until every delivery of the webhooks has finished, then a little more, for anything sent too often. */
async function allFinished(webhookIds: readonly string[], timeoutMs = 30_000): Promise<void> {
  await waitFor(
    async () => {
      for (const id of webhookIds) {
        const rows = await deliveriesOf(id);
        if (rows.length === 0 || rows.some((row) => row.state === 'pending')) return false;
      }
      return true;
    },
    'every delivery to finish',
    timeoutMs,
  );
  await sleep(300);
}

/** Each neighbour got the event once, and its one attempt is in the log. */
async function expectNeighboursRecorded(others: Awaited<ReturnType<typeof neighbours>>): Promise<void> {
  for (const { receiver, hook } of others) {
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveriesOf(hook.id)).toEqual([expect.objectContaining({ state: 'succeeded', attempts: 1 })]);
    expect((await logOf(hook.id)).map((row) => [row.attempt, row.success])).toEqual([[1, true]]);
  }
}

test('a 200 whose body holds a NUL byte is one attempt, recorded with U+FFFD in its place', async () => {
  const { receiver, hook } = await webhookAnswering(() => plainAnswer(200, NUL_BODY));
  const others = await neighbours();
  await ingest(h, 'job.run.completed');
  await allFinished([hook.id, ...others.map((o) => o.hook.id)]);

  expect(receiver.requests).toHaveLength(1);
  expect(await deliveriesOf(hook.id)).toEqual([
    expect.objectContaining({ state: 'succeeded', attempts: 1, lease_owner: null }),
  ]);
  const [row] = await logOf(hook.id);
  expect(row).toMatchObject({ attempt: 1, success: true, http_status_code: '200', response_body: 'before\uFFFDafter' });
  await expectNeighboursRecorded(others);

  // The test endpoint and a redelivery to the same receiver answer what it said, never a 500.
  const tested = await h.call('GET', `${webhookPath(hook.id)}/test`);
  expect(tested.statusCode).toBe(200);
  expect(tested.json().data).toEqual({ verification_error: null, verification_status_code: '200' });
  const retried = await h.call('POST', `${webhookPath(hook.id)}/deliveries/${row!.delivery_id}/retry`);
  expect(retried.statusCode).toBe(200);
  expect(retried.json().data).toMatchObject({ attempt: 2, success: true, response_body: 'before\uFFFDafter' });
});

test('a 500 whose body holds a NUL byte gets exactly six attempts, each in the log, and no more', async () => {
  const invalid = Buffer.concat([NUL_BODY, Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80])]);
  const { receiver, hook } = await webhookAnswering(() => plainAnswer(500, invalid));
  const others = await neighbours();
  await ingest(h, 'job.run.completed');
  // Five failures in a row open the endpoint's circuit, for 10 to 12 s, before the sixth attempt.
  await allFinished([hook.id, ...others.map((o) => o.hook.id)], 40_000);

  expect(receiver.requests.map((r) => r.headers['x-jobhooks-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
  expect(await deliveriesOf(hook.id)).toEqual([
    expect.objectContaining({ state: 'failed', attempts: 6, lease_owner: null }),
  ]);
  const log = await logOf(hook.id);
  expect(log.map((row) => [row.attempt, row.http_status_code, row.success])).toEqual(
    [6, 5, 4, 3, 2, 1].map((attempt) => [attempt, '500', false]),
  );
  for (const row of log) expect(row.response_body).toBe('before\uFFFDafter\uFFFD(\uFFFD\uFFFD\uFFFD');
  expect((await h.call('GET', webhookPath(hook.id))).json().data.http_status_code).toBe('500');
  await expectNeighboursRecorded(others);
});

test('an attempt whose row the database refuses is recorded without the answer, and its neighbours all are', async () => {
  await refuseLogRowsContaining(h, 'refuse me');
  const { receiver, hook } = await webhookAnswering(() => plainAnswer(200, 'please refuse me', ['X-Kept: yes']));
  const others = await neighbours();
  await ingest(h, 'job.run.completed');
  await allFinished([hook.id, ...others.map((o) => o.hook.id)]);

  expect(receiver.requests).toHaveLength(1);
  expect(await deliveriesOf(hook.id)).toEqual([expect.objectContaining({ state: 'succeeded', attempts: 1 })]);
  const [row] = await logOf(hook.id);
  expect(row).toMatchObject({ attempt: 1, success: true, response_body: '', response_headers: {} });
  expect(row!.error).toContain('The answer could not be stored, so its body and headers are left out');
  expect(row!.error).toContain(REFUSAL);
  await expectNeighboursRecorded(others);

  const tested = await h.call('GET', `${webhookPath(hook.id)}/test`);
  expect(tested.statusCode).toBe(200);
  expect(tested.json().data).toEqual({ verification_error: null, verification_status_code: '200' });
  const retried = await h.call('POST', `${webhookPath(hook.id)}/deliveries/${row!.delivery_id}/retry`);
  expect(retried.statusCode).toBe(200);
  expect(retried.json().data).toMatchObject({ attempt: 2, success: true, response_body: '' });
  expect((await logOf(hook.id)).filter((r) => r.error?.includes(REFUSAL))).toHaveLength(3);
});

test('headers are kept fairly and credentials masked, for every token, in the database too', async () => {
  const { hook } = await webhookAnswering(() =>
    plainAnswer(200, 'ok', [
      `X-Huge: ${'h'.repeat(5000)}`,
      'Set-Cookie: session=s3cret-cookie; HttpOnly',
      'Authorization: Bearer s3cret-bearer',
      'X-Api-Key: s3cret-key',
      'X-After: kept',
    ]),
  );
  await ingest(h, 'job.run.completed');
  await allFinished([hook.id]);
  const readOnly = await h.token('Read-Only');
  for (const token of [undefined, readOnly]) {
    const [row] = await logOf(hook.id, token);
    expect(row!.response_headers).toMatchObject({
      'x-huge': `${'h'.repeat(1024)}…`,
      'set-cookie': '(masked)',
      authorization: '(masked)',
      'x-api-key': '(masked)',
      'x-after': 'kept',
    });
  }
  expect(await h.db.snapshot()).not.toMatch(/s3cret/);

  // A row logged before masking (or before the operator listed a name) is masked when it is read.
  const [logged] = await h.db.rows<{ id: number }>('SELECT id FROM delivery_attempts');
  await h.db.run('UPDATE delivery_attempts SET response_headers = ? WHERE id = ?', [
    JSON.stringify({ 'set-cookie': 'old=s3cret', 'x-api-key': 'old-key', 'x-other': 'shown' }),
    logged!.id,
  ]);
  const [old] = await logOf(hook.id, readOnly);
  expect(old!.response_headers).toEqual({ 'set-cookie': '(masked)', 'x-api-key': '(masked)', 'x-other': 'shown' });
});
