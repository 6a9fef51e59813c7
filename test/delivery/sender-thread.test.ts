// The sender thread: requests cross to a worker thread and their outcomes come back, each to its own caller;
// a thread that dies fails its sends (the service's fault, not the endpoint's) and the next send starts a new one;
// a send whose answer does not come in time fails the same way at its deadline.
import { createThreadedSender, type ThreadedSender } from '../../service/src/delivery/sender-thread';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { sleep, waitFor } from '../support/wait';

let receiver: Receiver;
let sender: ThreadedSender | null = null;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await sender?.close();
  sender = null;
  await receiver.close();
});

test('a request sent from the thread arrives byte for byte, and its outcome comes back', async () => {
  receiver.respondWith(answer(429, 'slow down', { 'retry-after': '7' }));
  sender = createThreadedSender({ allowPrivateUrls: true });
  // A view into a larger buffer: only its own bytes are sent.
  const slab = Buffer.from('xxxx{"event":"job.run.completed"}yyyy');
  const body = slab.subarray(4, slab.length - 4);
  const outcome = await sender.send({
    url: `${receiver.url}/hook`,
    body,
    headers: { 'content-type': 'application/json', authorization: 'sig' },
  });
  expect(outcome).toMatchObject({ kind: 'response', status: 429, bodyExcerpt: 'slow down', retryAfter: '7' });
  expect(receiver.requests).toHaveLength(1);
  expect(receiver.requests[0]!.body.toString()).toBe('{"event":"job.run.completed"}');
  expect(receiver.requests[0]!.headers.authorization).toBe('sig');
});

test('many requests made at once each get their own outcome', async () => {
  receiver.respondWith((request, response) => response.writeHead(Number(request.url.split('/')[1])).end(request.url));
  sender = createThreadedSender({ allowPrivateUrls: true });
  const statuses = [200, 201, 400, 404, 410, 500, 503];
  const paths = Array.from({ length: 300 }, (_, i) => `/${statuses[i % statuses.length]}/${i}`);
  const outcomes = await Promise.all(
    paths.map((path) => sender!.send({ url: `${receiver.url}${path}`, body: Buffer.from('{}'), headers: {} })),
  );
  outcomes.forEach((outcome, i) => {
    expect(outcome).toMatchObject({ kind: 'response', status: statuses[i % statuses.length], bodyExcerpt: paths[i] });
  });
});

test('the options reach the thread: a private address is refused there, and the time limit applies', async () => {
  sender = createThreadedSender({ allowPrivateUrls: false });
  await expect(sender.send({ url: receiver.url, body: Buffer.from('{}'), headers: {} })).resolves.toMatchObject({
    kind: 'no_response',
    error:
      '127.0.0.1 is not a public address; to allow it for local development and tests, start jobhooks with JOBHOOKS_ALLOW_PRIVATE_URLS=1.',
  });
  await sender.close();

  receiver.respondWith((_request, response) => setTimeout(() => response.writeHead(200).end(), 600));
  sender = createThreadedSender({ allowPrivateUrls: true, timeoutMs: 200 });
  await expect(sender.send({ url: receiver.url, body: Buffer.from('{}'), headers: {} })).resolves.toMatchObject({
    kind: 'no_response',
    error: 'No complete response within 0.2 s',
  });
});

test('when the thread dies, its sends in flight fail instead of hanging, and the next send starts a new thread', async () => {
  receiver.respondWith(() => undefined); // never answers
  sender = createThreadedSender({ allowPrivateUrls: true });
  const inFlight = sender.send({ url: receiver.url, body: Buffer.from('{}'), headers: {} });
  await waitFor(() => receiver.requests.length === 1, 'the request to arrive');
  await sender.terminateThread();
  await expect(inFlight).rejects.toThrow(/The sender thread stopped/);

  receiver.respondWith(answer(200, 'back'));
  await expect(sender.send({ url: receiver.url, body: Buffer.from('{}'), headers: {} })).resolves.toMatchObject({
    status: 200,
    bodyExcerpt: 'back',
  });
});

const post = (url: string) => sender!.send({ url, body: Buffer.from('{}'), headers: {} });

test("a send whose answer never comes fails at its deadline as the service's fault, not as a failed attempt", async () => {
  receiver.respondWith(() => undefined); // never answers
  // The thread's own limit is far past this test's time limit, so its answer cannot come while the test runs.
  sender = createThreadedSender({ allowPrivateUrls: true, timeoutMs: 600_000, replyDeadlineMs: 300 });
  const started = performance.now();
  await expect(post(receiver.url)).rejects.toThrow('The sender thread gave no answer within 0.3 s');
  expect(performance.now() - started).toBeGreaterThanOrEqual(295);
  // The thread works: it sent the request, and only its answer is missing.
  await waitFor(() => receiver.requests.length === 1, 'the request to arrive');
  await sender.terminateThread(); // its request would hold a graceful close for the close grace
});

test("a thread's start-up does not count against the deadline of the sends that wait for it", async () => {
  // The thread takes longer to start than the deadline: the first send still gets its answer. The deadline leaves
  // a new thread's first request (its HTTP parser compiled, its code not yet optimised) room on a loaded machine.
  sender = createThreadedSender({ allowPrivateUrls: true, replyDeadlineMs: 2_000, startupDelayMs: 3_000 });
  const started = performance.now();
  await expect(post(receiver.url)).resolves.toMatchObject({ kind: 'response', status: 200 });
  expect(performance.now() - started).toBeGreaterThanOrEqual(3_000);
});

test('an answer that comes after its deadline is ignored, and the next send gets its own', async () => {
  let lateAnswerSent = false;
  receiver.respondWith((_request, response) =>
    setTimeout(() => {
      response.writeHead(200).end('late');
      lateAnswerSent = true;
    }, 1_500),
  );
  sender = createThreadedSender({ allowPrivateUrls: true, replyDeadlineMs: 1_000 });
  await expect(post(`${receiver.url}/first`)).rejects.toThrow('The sender thread gave no answer within 1 s');
  await waitFor(() => lateAnswerSent, 'the late answer');
  await sleep(100); // for the thread to pass it on

  receiver.respondWith(answer(201, 'second'));
  const second = post(`${receiver.url}/second`);
  await expect(second).resolves.toMatchObject({ kind: 'response', status: 201, bodyExcerpt: 'second' });
});

test('an answer in time clears its deadline: no timer is left to keep the process alive', async () => {
  receiver.respondWith(answer(204));
  sender = createThreadedSender({ allowPrivateUrls: true });
  await post(receiver.url); // starts the thread and its connection
  const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
  const before = timers();
  await Promise.all(Array.from({ length: 50 }, () => post(receiver.url)));
  // The test runner's own timers come and go; a deadline left running would add one per send.
  expect(timers() - before).toBeLessThan(5);
});

test('close waits for requests in flight, then nothing more is sent', async () => {
  receiver.respondWith((_request, response) => setTimeout(() => response.writeHead(204).end(), 200));
  sender = createThreadedSender({ allowPrivateUrls: true });
  const inFlight = sender.send({ url: receiver.url, body: Buffer.from('{}'), headers: {} });
  await waitFor(() => receiver.requests.length === 1, 'the request to arrive');
  await sender.close();
  await expect(inFlight).resolves.toMatchObject({ kind: 'response', status: 204 });
  await expect(sender.send({ url: receiver.url, body: Buffer.from('{}'), headers: {} })).rejects.toThrow(
    'The sender is closed',
  );
  expect(receiver.requests).toHaveLength(1);
});
