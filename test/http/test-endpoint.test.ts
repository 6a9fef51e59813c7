// GET .../subscription/{id}/test sends a real, signed sample event and reports what the endpoint answered
// (docs/decisions.md#10-the-test-endpoint).
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { answer, closedPortUrl, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';

let h: Harness;
let receiver: Receiver;
beforeEach(async () => {
  h = await startHarness();
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
  await h.close();
});

const runTest = async (id: string) => h.call('GET', `${webhookPath(id)}/test`);

test('a 200 endpoint receives a signed job.run.completed sample and the result has no error', async () => {
  const hook = await createWebhook(h, { client_url: `${receiver.url}/hook?x=1`, name: 'My hook' });
  const response = await runTest(hook.id);
  expect(response.statusCode).toBe(200);
  expect(response.json()).toEqual({
    data: { verification_error: null, verification_status_code: '200' },
    status: { code: 200 },
  });

  expect(receiver.requests).toHaveLength(1);
  const [request] = receiver.requests;
  expect(request!.method).toBe('POST');
  expect(request!.url).toBe('/hook?x=1');
  expect(request!.headers['content-type']).toBe('application/json');
  expect(request!.headers['user-agent']).toMatch(/^jobhooks\//);
  expect(isGenuine(hook.hmac_secret, request!.body, request!.headers.authorization)).toBe(true);
  const payload = JSON.parse(request!.body.toString('utf8'));
  expect(payload).toMatchObject({
    accountId: 1,
    webhookId: hook.id,
    eventType: 'job.run.completed',
    webhookName: 'My hook',
  });
  expect(payload.eventId).toMatch(/^wev_/);
  expect(request!.headers['x-jobhooks-event-id']).toBe(payload.eventId);
  expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
  expect(payload.data).toMatchObject({ test: true, runStatus: 'Success', runStatusCode: 10 });
  expect(payload.data.runFinishedAt).toMatch(/Z$/);
  expect(payload.data.runErroredAt).toBeUndefined();
});

test('a 500 endpoint is reported as a verification error with status "500"', async () => {
  receiver.respondWith(answer(500, 'boom'));
  const hook = await createWebhook(h, { client_url: receiver.url });
  expect((await runTest(hook.id)).json().data).toEqual({
    verification_error: 'The endpoint answered HTTP 500',
    verification_status_code: '500',
  });
});

test('a redirect is a failure and its target is never requested', async () => {
  receiver.respondWith(answer(302, '', { location: '/elsewhere' }));
  const hook = await createWebhook(h, { client_url: `${receiver.url}/start` });
  expect((await runTest(hook.id)).json().data.verification_status_code).toBe('302');
  expect(receiver.requests.map((r) => r.url)).toEqual(['/start']);
});

test('an unreachable endpoint is reported with status "599" and the reason, and logged', async () => {
  const hook = await createWebhook(h, { client_url: await closedPortUrl() });
  expect((await runTest(hook.id)).json().data).toEqual({
    verification_error: 'Connection refused',
    verification_status_code: '599',
  });
  const log = (await h.call('GET', `${webhookPath(hook.id)}/deliveries`)).json().data;
  expect(log).toEqual([
    expect.objectContaining({ test: true, http_status_code: '599', error: 'Connection refused', success: false }),
  ]);
});

test('the test does not change http_status_code or dispatched_at', async () => {
  receiver.respondWith(answer(500));
  const hook = await createWebhook(h, { client_url: receiver.url });
  await runTest(hook.id);
  const read = (await h.call('GET', webhookPath(hook.id))).json().data;
  expect(read.http_status_code).toBe('0');
  expect(read.dispatched_at).toBeUndefined();
});

test('a HEAD request sends nothing', async () => {
  const hook = await createWebhook(h, { client_url: receiver.url });
  const response = await h.call('HEAD', `${webhookPath(hook.id)}/test`);
  expect(response.statusCode).toBe(404);
  expect(receiver.requests).toHaveLength(0);
});

test('an unknown webhook is a 404 and sends nothing', async () => {
  expect((await runTest('wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ')).statusCode).toBe(404);
  expect(receiver.requests).toHaveLength(0);
});
