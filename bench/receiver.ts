// The benchmark's receiver: answers 200 after verifying every signature (a bad one is counted, and fails the
// run), counts distinct deliveries, notes when each run's event arrived, and keeps the signed requests, headers
// and body, so the ceiling can replay exactly the same requests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isGenuineDelivery } from '../examples/receiver/receiver';

export interface SignedRequest {
  path: string;
  /**
   * Every header as it arrived, names and values in turn (Node's `rawHeaders`, a new array for each request, kept
   * as it is so that capturing copies nothing during the run): its signatures, ids, trace context and user agent,
   * which a replay must send too, as the receiver's work per request grows with them.
   */
  rawHeaders: string[];
  body: Buffer;
}

export interface BenchReceiver {
  url: string;
  /** Secrets by path, set as webhooks are created. */
  secrets: Map<string, string>;
  /** Distinct (event, webhook) pairs received. */
  delivered(): number;
  badSignatures(): number;
  /** performance.now() of the first arrival of each run id. */
  arrivals: Map<string, number>;
  captured: SignedRequest[];
  capture: boolean;
  close(): Promise<void>;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const seen = new Set<string>();
  let bad = 0;
  const receiver: Omit<BenchReceiver, 'url' | 'close'> = {
    secrets: new Map(),
    delivered: () => seen.size,
    badSignatures: () => bad,
    arrivals: new Map(),
    captured: [],
    capture: false,
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = request.url ?? '';
      const secret = receiver.secrets.get(path);
      const authorization = request.headers.authorization ?? '';
      if (secret === undefined || !isGenuineDelivery(secret, body, authorization)) {
        bad += 1;
        response.writeHead(401).end();
        return;
      }
      const event = JSON.parse(body.toString('utf8')) as {
        eventId: string;
        webhookId: string;
        data: { runId: string };
      };
      seen.add(`${event.eventId} ${event.webhookId}`);
      if (!receiver.arrivals.has(event.data.runId)) receiver.arrivals.set(event.data.runId, performance.now());
      if (receiver.capture) receiver.captured.push({ path, rawHeaders: request.rawHeaders, body });
      response.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
