// A closing service lets requests in flight finish for a while, but a client that stops sending or reading cannot
// hold the close (and the deliveries and database behind it) past that.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { createManualClock } from '../../service/src/core/clock';
import { createWebhook, startHarness, webhooksPath } from '../support/harness';
import { ingest } from '../support/events';
import { answer, startReceiver } from '../support/receiver';
import { sleep, waitFor } from '../support/wait';

/**
 * A request whose body never comes: 1,000 bytes announced, 10 sent. The service may answer it (its token is
 * checked first), but the connection stays busy with the body it still waits for.
 */
function stalledRequest(origin: string): Promise<Socket> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(
        `POST ${webhooksPath()} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
          'Content-Length: 1000\r\n\r\n{"name":"x',
      );
      socket.resume(); // reads whatever comes, so the server's end of the connection is seen
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

test('a request still in flight after the grace has its connection cut, and the close ends', async () => {
  const h = await startHarness({ httpCloseGraceMs: 300 });
  const origin = (await h.listen()).replace(/\/api$/, '');
  // The server has the request's head before the close starts.
  const requestSeen = once(h.service.app.server, 'request');
  const socket = await stalledRequest(origin);
  const cut = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await requestSeen;

  const started = Date.now();
  let closed = false;
  const closing = h.close().then(() => {
    closed = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 150));
  expect(closed).toBe(false); // still within the grace: the request may yet finish
  await closing;
  await cut;
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  socket.destroy();
});

test('closing stops claiming deliveries at once: a retry that falls due while requests finish is not sent', async () => {
  const clock = createManualClock();
  const h = await startHarness({ httpCloseGraceMs: 1_000, clock });
  const receiver = await startReceiver(answer(500));
  try {
    const origin = (await h.listen()).replace(/\/api$/, '');
    await createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
    await ingest(h, 'job.run.completed', { runId: 'closing' });
    await waitFor(() => receiver.requests.length === 1, 'the first attempt');
    await sleep(100); // its result, and so its retry, written
    // A request that holds the close for its whole grace, and meanwhile the retry falls due.
    const requestSeen = once(h.service.app.server, 'request');
    const socket = await stalledRequest(origin);
    await requestSeen;
    const closing = h.close();
    clock.advanceMillis(3_600_000);
    await sleep(600); // three polls of the dispatcher, had it gone on
    await closing;
    socket.destroy();
    expect(receiver.requests).toHaveLength(1);
  } finally {
    await receiver.close();
  }
});
