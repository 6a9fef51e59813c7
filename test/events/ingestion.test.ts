// POST .../webhooks/events: validation per event type, who may post, idempotency, and fan-out with filtering.
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { eventsPath, ingest, postEvent, runOf } from '../support/events';
import { type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

let h: Harness;
let receiver: Receiver;
beforeEach(async () => {
  h = await startHarness();
  receiver = await startReceiver();
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

const hook = (path: string, overrides: Record<string, unknown>) =>
  createWebhook(h, { client_url: `${receiver.url}${path}`, ...overrides });
const received = (path: string) =>
  receiver.requests.filter((r) => r.url === path).map((r) => JSON.parse(r.body.toString('utf8')));

test('an accepted event answers 202 with its id and the number of deliveries queued', async () => {
  await hook('/a', { event_types: ['job.run.completed'], job_ids: [] });
  await hook('/b', { event_types: ['job.run.completed'], job_ids: [42] });
  const response = await postEvent(h, 'job.run.completed');
  expect(response.statusCode).toBe(202);
  const body = response.json();
  expect(body.status).toEqual({ code: 202 });
  expect(body.data).toEqual({
    event_id: expect.stringMatching(/^wev_[0-9A-Z]{26}$/),
    deliveries: 2,
    skipped: 0,
    duplicate: false,
  });
});

test('deliveries follow event types and job ids; an empty job list means every job', async () => {
  await hook('/all-completed', { event_types: ['job.run.completed'], job_ids: [] });
  await hook('/job7-started', { event_types: ['job.run.started'], job_ids: [7] });
  await hook('/job42-any', {
    event_types: ['job.run.started', 'job.run.completed', 'job.run.errored'],
    job_ids: [42, 9],
  });
  await hook('/inactive', { event_types: ['job.run.completed'], job_ids: [], active: false });

  await ingest(h, 'job.run.started', { jobId: '42', runId: '1' });
  await ingest(h, 'job.run.started', { jobId: '7', runId: '2' });
  await ingest(h, 'job.run.completed', { jobId: '7', runId: '2' });
  await ingest(h, 'job.run.completed', { jobId: '8', runId: '3' });
  await waitFor(() => receiver.requests.length === 4, 'four deliveries');

  const events = (path: string) =>
    received(path)
      .map((p) => `${p.eventType} ${p.data.jobId}`)
      .sort();
  expect(events('/all-completed')).toEqual(['job.run.completed 7', 'job.run.completed 8']);
  expect(events('/job7-started')).toEqual(['job.run.started 7']);
  expect(events('/job42-any')).toEqual(['job.run.started 42']);
  expect(events('/inactive')).toEqual([]);
});

test('an errored run subscribed to errored and completed gets two notifications at different times', async () => {
  const both = await hook('/both', { event_types: ['job.run.errored', 'job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.errored', { runStatusCode: 20, runStatus: 'Errored' });
  await waitFor(() => receiver.requests.length === 1, 'the errored notification');
  await ingest(h, 'job.run.completed', { runStatusCode: 20, runStatus: 'Errored' });
  await waitFor(() => receiver.requests.length === 2, 'the completed notification');

  const [errored, completed] = received('/both');
  expect(errored).toMatchObject({
    eventType: 'job.run.errored',
    webhookId: both.id,
    data: { runId: '1001', runStatusCode: 20 },
  });
  expect(completed).toMatchObject({
    eventType: 'job.run.completed',
    webhookId: both.id,
    data: { runId: '1001', runStatusCode: 20 },
  });
  expect(errored.eventId).not.toBe(completed.eventId);
  expect(errored.timestamp < completed.timestamp).toBe(true);
});

test('the payload is exactly the documented payload, with the finishing timestamp of its event type only', async () => {
  const created = await hook('/p', {
    name: 'Payload check',
    event_types: ['job.run.started', 'job.run.completed', 'job.run.errored'],
    job_ids: [],
  });
  const ids = {
    started: (await ingest(h, 'job.run.started')).event_id,
    completed: (await ingest(h, 'job.run.completed')).event_id,
    errored: (await ingest(h, 'job.run.errored')).event_id,
  };
  await waitFor(() => receiver.requests.length === 3, 'three deliveries');
  const byType = Object.fromEntries(received('/p').map((p) => [p.eventType, p]));
  const common = {
    jobId: '42',
    jobName: 'Nightly models',
    runId: '1001',
    environmentId: '5',
    environmentName: 'Production',
    dbtVersion: '1.9.0',
    projectName: 'Analytics',
    projectId: '3',
    runStatusMessage: 'None',
    runReason: 'Kicked off by ana@example.com',
    runStartedAt: '2026-11-21T09:00:00Z',
  };
  const envelope = (eventType: string, eventId: string) => ({
    accountId: 1,
    webhookId: created.id,
    eventId,
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/),
    eventType,
    webhookName: 'Payload check',
  });
  expect(byType['job.run.started']).toEqual({
    ...envelope('job.run.started', ids.started),
    data: { ...common, runStatus: 'Running', runStatusCode: 3 },
  });
  expect(byType['job.run.completed']).toEqual({
    ...envelope('job.run.completed', ids.completed),
    data: { ...common, runStatus: 'Success', runStatusCode: 10, runFinishedAt: '2026-11-21T09:05:00Z' },
  });
  expect(byType['job.run.errored']).toEqual({
    ...envelope('job.run.errored', ids.errored),
    data: { ...common, runStatus: 'Errored', runStatusCode: 20, runErroredAt: '2026-11-21T09:04:00Z' },
  });
  expect(Object.keys(byType['job.run.completed'])).toEqual([
    'accountId',
    'webhookId',
    'eventId',
    'timestamp',
    'eventType',
    'webhookName',
    'data',
  ]);
});

test('a repeat of the same run and event type returns the first event id and queues nothing', async () => {
  await hook('/r', { event_types: ['job.run.completed'], job_ids: [] });
  const first = await postEvent(h, 'job.run.completed');
  const repeat = await postEvent(h, 'job.run.completed', { jobName: 'changed name' });
  expect(repeat.statusCode).toBe(202);
  expect(repeat.headers['idempotent-replayed']).toBe('true');
  expect(repeat.json().data).toEqual({
    event_id: first.json().data.event_id,
    deliveries: 0,
    skipped: 0,
    duplicate: true,
  });
  await waitFor(() => receiver.requests.length >= 1, 'the delivery');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(receiver.requests).toHaveLength(1);
  // Another event type of the same run is a different event.
  expect((await ingest(h, 'job.run.errored')).duplicate).toBe(false);
});

test.each([
  ['Account Admin', 202],
  ['Job Runner', 202],
  ['Admin', 403],
  ['Developer', 403],
  ['Read-Only', 403],
] as const)('a %s token gets %i', async (permissionSet, status) => {
  const token = await h.token(permissionSet);
  const response = await postEvent(h, 'job.run.started', { runId: permissionSet }, token);
  expect(response.statusCode).toBe(status);
  if (status === 403) expect(response.json().status.user_message).toMatch(/Account Admin, Job Runner/);
});

test("a token cannot post events to another account's webhooks", async () => {
  const other = await h.token('Account Admin', 2);
  const response = await h.call('POST', eventsPath(1), {
    token: other,
    body: { event_type: 'job.run.started', run: runOf('job.run.started') },
  });
  expect(response.statusCode).toBe(403);
});

test.each([
  [
    'completed without runFinishedAt',
    'job.run.completed',
    { runFinishedAt: undefined },
    'run.runFinishedAt',
    /required for job.run.completed/,
  ],
  [
    'errored without runErroredAt',
    'job.run.errored',
    { runErroredAt: undefined },
    'run.runErroredAt',
    /required for job.run.errored/,
  ],
  ['started with a finished status', 'job.run.started', { runStatusCode: 10 }, 'run.runStatusCode', /2, 3/],
  ['errored with a success status', 'job.run.errored', { runStatusCode: 10 }, 'run.runStatusCode', /20/],
  ['a non-numeric job id', 'job.run.started', { jobId: 'abc' }, 'run.jobId', /positive whole number/],
  ['a numeric run status code as a string', 'job.run.started', { runStatusCode: '3' }, 'run.runStatusCode', /number/],
  [
    'a run start time without a time zone',
    'job.run.started',
    { runStartedAt: '2026-11-21T09:00:00' },
    'run.runStartedAt',
    /./,
  ],
  ['a missing runId', 'job.run.started', { runId: undefined }, 'run.runId', /./],
] as const)(
  '%s is a 400 naming the field, and records nothing',
  async (_name, eventType, overrides, field, message) => {
    await hook('/v', { event_types: ['job.run.started', 'job.run.completed', 'job.run.errored'], job_ids: [] });
    const before = await h.db.snapshot();
    const run = { ...runOf(eventType), ...overrides };
    const response = await h.call('POST', eventsPath(), {
      body: { event_type: eventType, run: JSON.parse(JSON.stringify(run)) },
    });
    expect(response.statusCode).toBe(400);
    const fieldErrors = response.json().extra.field_errors;
    expect(fieldErrors[field]?.join(' ')).toMatch(message);
    expect(await h.db.snapshot()).toEqual(before);
  },
);

test('an unknown event type is a 400 listing the event types', async () => {
  const response = await h.call('POST', eventsPath(), {
    body: { event_type: 'job.run.paused', run: runOf('job.run.started') },
  });
  expect(response.statusCode).toBe(400);
  expect(response.json().extra.field_errors.event_type[0]).toMatch(
    /job.run.started, job.run.completed, job.run.errored/,
  );
});

test('an archived webhook gets a skipped delivery and no request', async () => {
  receiver.respondWith((_req, res) => res.writeHead(410).end());
  const gone = await hook('/gone', { event_types: ['job.run.started', 'job.run.completed'], job_ids: [] });
  await ingest(h, 'job.run.started');
  await waitFor(async () => (await h.call('GET', webhookPath(gone.id))).json().data.archived === true, 'archiving');
  const result = await ingest(h, 'job.run.completed');
  expect(result).toMatchObject({ deliveries: 0, skipped: 1 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(receiver.requests).toHaveLength(1);
});

test('events taken in together fan out alike; a webhook added or changed after their transaction is seen by the next', async () => {
  // The events of one transaction read their account's webhooks once; the next transaction must read them again.
  await h.service.dispatcher.stop(0);
  const first = await hook('/first', { event_types: ['job.run.completed'], job_ids: [] });
  const together = await Promise.all(
    [1, 2, 3].map((runId) => ingest(h, 'job.run.completed', { runId: String(runId) })),
  );
  expect(together.map((event) => event.deliveries)).toEqual([1, 1, 1]);

  await hook('/second', { event_types: ['job.run.completed'], job_ids: [] });
  expect((await ingest(h, 'job.run.completed', { runId: '4' })).deliveries).toBe(2);

  const update = await h.call('PUT', webhookPath(first.id), {
    body: {
      name: first.name,
      client_url: first.client_url,
      event_types: ['job.run.started'],
      job_ids: [],
      active: true,
    },
  });
  expect(update.statusCode).toBe(200);
  const next = await Promise.all([5, 6].map((runId) => ingest(h, 'job.run.completed', { runId: String(runId) })));
  expect(next.map((event) => event.deliveries)).toEqual([1, 1]);
});

test("a delivery's runStatus is the word paired with its code and its runStartedAt is to the second, as posted or not", async () => {
  await hook('/pairs', { event_types: ['job.run.completed', 'job.run.errored'], job_ids: [] });
  const startedAt = '2026-11-21T09:00:07.918273645Z';
  await ingest(h, 'job.run.errored', { runStatusCode: 20, runStatus: 'Error', runStartedAt: startedAt, runId: 'p1' });
  await ingest(h, 'job.run.completed', {
    runStatusCode: 30,
    runStatus: 'cancelled',
    runStartedAt: startedAt,
    runId: 'p2',
  });
  await ingest(h, 'job.run.completed', { runStatusCode: 10, runStartedAt: '2026-11-21T09:00:07Z', runId: 'p3' });
  await waitFor(() => received('/pairs').length === 3, 'three deliveries');
  const byRun = Object.fromEntries(received('/pairs').map((p) => [p.data.runId, p.data]));
  expect(byRun.p1).toMatchObject({ runStatus: 'Errored', runStatusCode: 20, runStartedAt: '2026-11-21T09:00:07Z' });
  expect(byRun.p2).toMatchObject({ runStatus: 'Cancelled', runStatusCode: 30, runStartedAt: '2026-11-21T09:00:07Z' });
  expect(byRun.p3).toMatchObject({ runStatus: 'Success', runStatusCode: 10, runStartedAt: '2026-11-21T09:00:07Z' });
  // The fields in the contract's order, the two rewritten ones where they were.
  expect(Object.keys(byRun.p1)).toEqual([
    'jobId',
    'jobName',
    'runId',
    'environmentId',
    'environmentName',
    'dbtVersion',
    'projectName',
    'projectId',
    'runStatus',
    'runStatusCode',
    'runStatusMessage',
    'runReason',
    'runStartedAt',
    'runErroredAt',
  ]);
});
