// A webhook receiver that checks every delivery is genuine before acting on it
// (docs/api-contract.md#13-delivery-headers-and-signature), and handles each
// event once although deliveries are at-least-once.
//
//   JOBHOOKS_HMAC_SECRET=<hmac_secret from the create response> PORT=9000 npx tsx examples/receiver/receiver.ts
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/** Deliveries are small; refuse anything larger instead of buffering it. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How many event ids to remember for de-duplication; retries of one event come within hours. */
const REMEMBERED_EVENTS = 10_000;

export interface JobRunEvent {
  eventId: string;
  eventType: string;
  webhookId: string;
  data: { jobId: string; runId: string; runStatus: string; runStatusCode: number };
}

/** True when `signature` is the hex HMAC-SHA256 of the raw body bytes keyed with the secret. */
export function isGenuineDelivery(secret: string, rawBody: Buffer, signature: string | undefined): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'), 'utf8');
  const given = Buffer.from(signature ?? '', 'utf8');
  // timingSafeEqual needs equal lengths; comparing lengths first reveals only the length, which is public.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readRawBody(request: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        request.destroy();
      } else {
        chunks.push(chunk);
      }
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export function createReceiver(options: { secret: string; onEvent: (event: JobRunEvent) => void }): Server {
  const seen = new Set<string>();
  return createServer(async (request, response) => {
    if (request.method !== 'POST') return void response.writeHead(405, { allow: 'POST' }).end();
    // Verify the bytes as they arrived: parsing and re-serializing the JSON first would change them.
    const body = await readRawBody(request);
    if (body === null) return void response.writeHead(413).end();
    if (!isGenuineDelivery(options.secret, body, request.headers.authorization)) {
      return void response.writeHead(401).end('signature mismatch');
    }
    let event: JobRunEvent;
    try {
      event = JSON.parse(body.toString('utf8')) as JobRunEvent;
    } catch {
      return void response.writeHead(400).end('not JSON');
    }
    // A retry of an event already handled: acknowledge it so the sender stops, but do not act twice.
    if (!seen.has(event.eventId)) {
      seen.add(event.eventId);
      if (seen.size > REMEMBERED_EVENTS) seen.delete(seen.values().next().value!);
      options.onEvent(event);
    }
    response.writeHead(204).end();
  });
}

if (require.main === module) {
  const secret = process.env.JOBHOOKS_HMAC_SECRET;
  if (!secret) {
    process.stderr.write('Set JOBHOOKS_HMAC_SECRET to the hmac_secret returned when the webhook was created.\n');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 9000);
  createReceiver({
    secret,
    onEvent: (event) =>
      process.stdout.write(
        `${event.eventType} run ${event.data.runId} of job ${event.data.jobId}: ${event.data.runStatus}\n`,
      ),
  }).listen(port, '127.0.0.1', () => process.stdout.write(`receiver listening on http://127.0.0.1:${port}/\n`));
}
