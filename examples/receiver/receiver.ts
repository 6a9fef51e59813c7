// A webhook receiver that checks every delivery is genuine before acting on it
// (docs/api-contract.md#13-delivery-headers-and-signature), and handles each
// message (one event for one webhook) once although deliveries are at-least-once.
//
//   JOBHOOKS_HMAC_SECRET=<hmac_secret from the create response> PORT=9000 npx tsx examples/receiver/receiver.ts
//
// During a secret rotation, give it both secrets, new first: JOBHOOKS_HMAC_SECRET=<new>,<old>. A delivery is genuine
// when either verifies, which is what the rotation procedure asks of a dbt-scheme receiver
// (docs/api-contract.md#15-secret-rotation).
//
// Either signature scheme (JOBHOOKS_SIGNATURE_SCHEME): `standard` (the default) checks the Standard Webhooks
// headers with a Standard Webhooks library, and refuses a request signed more than 5 minutes ago, so a captured
// request cannot be replayed; `dbt` checks `Authorization` as a dbt Cloud receiver does (the body only).
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Webhook } from 'standardwebhooks';

/** Deliveries are small; refuse anything larger instead of buffering it. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How many messages to remember for de-duplication; retries of one delivery come within hours. */
const REMEMBERED_MESSAGES = 10_000;

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

/**
 * The webhook's `hmac_secret` as a Standard Webhooks library takes a secret: `whsec_` and the base64 of its key
 * bytes. jobhooks keys both schemes with the secret's UTF-8 text, so these are the same bytes.
 */
export function standardWebhooksSecret(hmacSecret: string): string {
  return `whsec_${Buffer.from(hmacSecret, 'utf8').toString('base64')}`;
}

/** True when the Standard Webhooks headers sign this body, now (within the library's 5 minutes). */
export function isGenuineStandardDelivery(hmacSecret: string, rawBody: Buffer, headers: IncomingHttpHeaders): boolean {
  const header = (name: string) => (typeof headers[name] === 'string' ? headers[name] : '');
  try {
    new Webhook(standardWebhooksSecret(hmacSecret)).verify(rawBody, {
      'webhook-id': header('webhook-id'),
      'webhook-timestamp': header('webhook-timestamp'),
      'webhook-signature': header('webhook-signature'),
    });
    return true;
  } catch {
    return false;
  }
}

export type SignatureScheme = 'standard' | 'dbt';

/**
 * What identifies one message, the same on every retry and redelivery of it: the signed `webhook-id` with the
 * Standard Webhooks scheme; with dbt's, which has no such header, the body's webhook and event ids. The event id
 * alone is not enough: one event sent to two webhooks that share this receiver is two messages.
 */
function messageIdOf(scheme: SignatureScheme, headers: IncomingHttpHeaders, event: JobRunEvent): string {
  return scheme === 'standard' ? String(headers['webhook-id']) : `${event.webhookId}/${event.eventId}`;
}

/** Genuine when one of the secrets (one, or the new and the old during a rotation) verifies it. */
function isGenuine(
  scheme: SignatureScheme,
  secrets: readonly string[],
  body: Buffer,
  headers: IncomingHttpHeaders,
): boolean {
  return secrets.some((secret) =>
    scheme === 'dbt'
      ? isGenuineDelivery(secret, body, headers.authorization)
      : isGenuineStandardDelivery(secret, body, headers),
  );
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

export function createReceiver(options: {
  /** The webhook's secret, or its new and old secrets during a rotation. */
  secret: string | readonly string[];
  scheme?: SignatureScheme;
  onEvent: (event: JobRunEvent) => void;
}): Server {
  const scheme = options.scheme ?? 'standard';
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  const seen = new Set<string>();
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST') return void response.writeHead(405, { allow: 'POST' }).end();
    // Verify the bytes as they arrived: parsing and re-serializing the JSON first would change them.
    const body = await readRawBody(request);
    if (body === null) return void response.writeHead(413).end();
    if (!isGenuine(scheme, secrets, body, request.headers)) {
      return void response.writeHead(401).end('signature mismatch');
    }
    let event: JobRunEvent;
    try {
      event = JSON.parse(body.toString('utf8')) as JobRunEvent;
    } catch {
      return void response.writeHead(400).end('not JSON');
    }
    // A retry of a message already handled: acknowledge it so the sender stops, but do not act twice.
    const messageId = messageIdOf(scheme, request.headers, event);
    if (!seen.has(messageId)) {
      // Remembered once handled: a handler that throws answers 500, and the retry is handled then.
      options.onEvent(event);
      seen.add(messageId);
      if (seen.size > REMEMBERED_MESSAGES) seen.delete(seen.values().next().value!);
    }
    response.writeHead(204).end();
  }

  return createServer((request, response) => {
    // A request that breaks off (or a handler that throws) gets a 500, or a closed connection if one was begun.
    handle(request, response).catch(() => {
      if (response.headersSent) response.destroy();
      else response.writeHead(500).end();
    });
  });
}

if (require.main === module) {
  const secret = process.env.JOBHOOKS_HMAC_SECRET;
  if (!secret) {
    process.stderr.write('Set JOBHOOKS_HMAC_SECRET to the hmac_secret returned when the webhook was created.\n');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 9000);
  const scheme = process.env.JOBHOOKS_SIGNATURE_SCHEME ?? 'standard';
  if (scheme !== 'standard' && scheme !== 'dbt') {
    process.stderr.write(`JOBHOOKS_SIGNATURE_SCHEME must be standard or dbt, not "${scheme}".\n`);
    process.exit(1);
  }
  createReceiver({
    secret: secret.split(',').map((part) => part.trim()),
    scheme,
    onEvent: (event) =>
      process.stdout.write(
        `${event.eventType} run ${event.data.runId} of job ${event.data.jobId}: ${event.data.runStatus}\n`,
      ),
  }).listen(port, '127.0.0.1', () => process.stdout.write(`receiver listening on http://127.0.0.1:${port}/\n`));
}
