// A closing service lets requests in flight finish for a while, but a client that stops sending or reading cannot
// hold the close (and the deliveries and database behind it) past that.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { startHarness, webhooksPath } from '../support/harness';

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
