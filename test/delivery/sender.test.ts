// The sender: what an attempt reports, the whole-attempt time limit, and the send-time DNS check that pins the
// connection to the checked address (checked both in this thread and through the sender thread the service uses).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  createHttpSender,
  type HttpSender,
  type HttpSenderOptions,
  type SendOutcome,
} from '../../service/src/delivery/sender';
import { createThreadedSender } from '../../service/src/delivery/sender-thread';
import { answer, closedPortUrl, type Receiver, startReceiver } from '../support/receiver';

let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

const delivery = (url: string) => ({ url, body: Buffer.from('{}'), headers: { 'content-type': 'application/json' } });

type MakeSender = (options: HttpSenderOptions) => HttpSender;

/** One attempt to `url` through a sender made for it (in this thread unless told), closed afterwards. */
async function sendOnce(
  options: HttpSenderOptions,
  url: string,
  make: MakeSender = createHttpSender,
): Promise<SendOutcome> {
  const sender = make(options);
  try {
    return await sender.send(delivery(url));
  } finally {
    await sender.close();
  }
}

test('a response that takes longer than the limit is a failure even if it is a 200', async () => {
  receiver.respondWith((_req, res) => setTimeout(() => res.writeHead(200).end('late'), 600));
  const outcome = await sendOnce({ allowPrivateUrls: true, timeoutMs: 200 }, receiver.url);
  expect(outcome).toMatchObject({ kind: 'no_response', error: 'No complete response within 0.2 s' });
});

test('a body that stops arriving after the headers is a failure at the limit, not a hang', async () => {
  receiver.respondWith((_req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('only part of it');
  });
  const outcome = await sendOnce({ allowPrivateUrls: true, timeoutMs: 200 }, receiver.url);
  expect(outcome).toMatchObject({ kind: 'no_response', error: 'No complete response within 0.2 s' });
  expect(outcome.durationMs).toBeGreaterThanOrEqual(195);
});

// The service sends from the thread; the checks must hold there too, with the hosts table crossing into it.
describe.each<[string, MakeSender]>([
  ['in this thread', createHttpSender],
  ['through the sender thread', createThreadedSender],
])('the address check, %s', (_where, makeSender) => {
  test('a name that resolves to a private address is refused at send time, and nothing is sent', async () => {
    const port = new URL(receiver.url).port;
    const outcome = await sendOnce(
      { allowPrivateUrls: false, hosts: { 'looks-public.example': [{ address: '127.0.0.1', family: 4 }] } },
      `http://looks-public.example:${port}/`,
      makeSender,
    );
    expect(outcome.kind).toBe('no_response');
    expect(outcome.kind === 'no_response' && outcome.error).toBe(
      'looks-public.example resolves only to private or otherwise non-public addresses; to allow it for local development and tests, start jobhooks with JOBHOOKS_ALLOW_PRIVATE_URLS=1.',
    );
    expect(receiver.requests).toHaveLength(0);
  });

  test('a literal private address is refused without a connection', async () => {
    const outcome = await sendOnce({ allowPrivateUrls: false }, receiver.url, makeSender);
    expect(outcome).toMatchObject({
      kind: 'no_response',
      error:
        '127.0.0.1 is not a public address; to allow it for local development and tests, start jobhooks with JOBHOOKS_ALLOW_PRIVATE_URLS=1.',
    });
    expect(receiver.requests).toHaveLength(0);
  });

  test('the connection goes to the address the name resolved to', async () => {
    const port = new URL(receiver.url).port;
    const outcome = await sendOnce(
      { allowPrivateUrls: true, hosts: { 'hooks.example': [{ address: '127.0.0.1', family: 4 }] } },
      `http://hooks.example:${port}/pinned`,
      makeSender,
    );
    expect(outcome).toMatchObject({ kind: 'response', status: 200 });
    const received = receiver.requests.map((request) => [request.url, request.headers.host]);
    expect(received).toEqual([['/pinned', `hooks.example:${port}`]]);
  });
});

test('the response body excerpt is capped at 4 KiB', async () => {
  receiver.respondWith(answer(200, 'x'.repeat(10_000)));
  const outcome = await sendOnce({ allowPrivateUrls: true }, receiver.url);
  expect(outcome.kind === 'response' && outcome.bodyExcerpt.length).toBe(4096);
});

test('a body longer than 4 KiB that never ends is answered at 4 KiB, not at the time limit', async () => {
  receiver.respondWith((_req, res) => {
    res.writeHead(503, { 'retry-after': '120' });
    res.write('y'.repeat(5000));
  });
  const outcome = await sendOnce({ allowPrivateUrls: true, timeoutMs: 5_000 }, receiver.url);
  expect(outcome).toMatchObject({ kind: 'response', status: 503, retryAfter: '120', bodyExcerpt: 'y'.repeat(4096) });
  expect(outcome.durationMs).toBeLessThan(2_000);
});

test('the status, the Retry-After header and the whole of a short body are reported; the request carries the bytes and headers given', async () => {
  receiver.respondWith(answer(429, 'slow down', { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }));
  const outcome = await sendOnce({ allowPrivateUrls: true }, `${receiver.url}/hook?source=test`);
  expect(outcome).toMatchObject({
    kind: 'response',
    status: 429,
    bodyExcerpt: 'slow down',
    retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT',
  });
  expect(receiver.requests[0]).toMatchObject({ method: 'POST', url: '/hook?source=test', body: Buffer.from('{}') });
  expect(receiver.requests[0]!.headers['content-type']).toBe('application/json');
});

test('a refused connection is a failure that says so', async () => {
  const outcome = await sendOnce({ allowPrivateUrls: true }, await closedPortUrl());
  expect(outcome).toMatchObject({ kind: 'no_response', error: 'Connection refused' });
});

test('a request still waiting for a connection at its limit is a failure then, and is never sent', async () => {
  const arrivals: string[] = [];
  // Every request holds the only connection until its limit; the receiver notes the order they arrived in.
  receiver.respondWith((request) => void arrivals.push(request.url ?? ''));
  // What happened in this process, in order: each request's headers written to the socket, each send settled.
  const events: string[] = [];
  const onHeaders = (message: unknown) =>
    events.push(`sent ${(message as { request: { path: string } }).request.path}`);
  subscribe('undici:client:sendHeaders', onHeaders);
  const sender = createHttpSender({ allowPrivateUrls: true, timeoutMs: 300, connectionsPerOrigin: 1 });
  try {
    const first = sender.send(delivery(`${receiver.url}/first`));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Both wait for the connection; at 300 ms the second gets it, and the third is still waiting at its limit.
    const [second, third] = await Promise.all([
      sender.send(delivery(`${receiver.url}/second`)),
      sender.send(delivery(`${receiver.url}/third`)).finally(() => events.push('third settled')),
    ]);
    for (const outcome of [await first, second, third])
      expect(outcome).toMatchObject({ kind: 'no_response', error: 'No complete response within 0.3 s' });
    expect(third.durationMs).toBeLessThan(1_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(arrivals.slice(0, 2)).toEqual(['/first', '/second']);
    expect(events.slice(0, 2)).toEqual(['sent /first', 'sent /second']);
    // Its limit and the second's end fall in the same millisecond: on a loaded machine the connection can come free
    // a moment before the third's limit, and it is then sent in time. It is never sent after its limit: its headers,
    // if written at all, were written before its send settled.
    const thirdSent = events.indexOf('sent /third');
    if (thirdSent !== -1) expect(thirdSent).toBeLessThan(events.indexOf('third settled'));
  } finally {
    unsubscribe('undici:client:sendHeaders', onHeaders);
    await sender.close();
  }
});
