// The sender: the whole-attempt time limit, and the send-time DNS check that pins the connection to the checked address.
import { createHttpSender, type HttpSenderOptions, type SendOutcome } from '../../service/src/delivery/sender';
import { answer, type Receiver, startReceiver } from '../support/receiver';

let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

const delivery = (url: string) => ({ url, body: Buffer.from('{}'), headers: { 'content-type': 'application/json' } });

/** One attempt to `url` through a sender made for it, closed afterwards. */
async function sendOnce(options: HttpSenderOptions, url: string): Promise<SendOutcome> {
  const sender = createHttpSender(options);
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

test('a name that resolves to a private address is refused at send time, and nothing is sent', async () => {
  const port = new URL(receiver.url).port;
  const outcome = await sendOnce(
    { allowPrivateUrls: false, resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
    `http://looks-public.example:${port}/`,
  );
  expect(outcome.kind).toBe('no_response');
  expect(outcome.kind === 'no_response' && outcome.error).toMatch(/non-public/);
  expect(receiver.requests).toHaveLength(0);
});

test('a literal private address is refused without a connection', async () => {
  const outcome = await sendOnce({ allowPrivateUrls: false }, receiver.url);
  expect(outcome).toMatchObject({ kind: 'no_response', error: '127.0.0.1 is not a public address' });
  expect(receiver.requests).toHaveLength(0);
});

test('the response body excerpt is capped at 4 KiB', async () => {
  receiver.respondWith(answer(200, 'x'.repeat(10_000)));
  const outcome = await sendOnce({ allowPrivateUrls: true }, receiver.url);
  expect(outcome.kind === 'response' && outcome.bodyExcerpt.length).toBe(4096);
});
