// Posts one signed delivery over a keep-alive pool and reports what happened as a tagged outcome.
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, request } from 'undici';
import { literalAddress, isPublicAddress } from '../security/address-policy';
import { createGuardedLookup, type LookupAll } from './guarded-lookup';

/** Spec section 6 rule 5: an attempt without a complete response within 10 s is a failure. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The delivery log keeps the first 4 KiB of a response body (design section 2). */
export const RESPONSE_EXCERPT_BYTES = 4096;

export interface OutgoingDelivery {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
}

export type SendOutcome =
  | { kind: 'response'; status: number; durationMs: number; bodyExcerpt: string; retryAfter: string | null }
  | { kind: 'no_response'; error: string; durationMs: number };

export type Send = (delivery: OutgoingDelivery) => Promise<SendOutcome>;

export interface HttpSender {
  send: Send;
  close(): Promise<void>;
}

export interface HttpSenderOptions {
  allowPrivateUrls: boolean;
  timeoutMs?: number;
  resolve?: LookupAll;
  /** Most connections to one origin (scheme, host and port). */
  connectionsPerOrigin?: number;
}

const defaultResolve: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

async function readExcerpt(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_EXCERPT_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const inner = err.cause ?? err;
  if (err.name === 'TimeoutError' || err.name === 'AbortError' || inner.name === 'TimeoutError') {
    return `No complete response within ${timeoutMs / 1000} s`;
  }
  if (inner.code === 'EJOBHOOKS_BLOCKED_ADDRESS') return inner.message;
  if (inner.code === 'ECONNREFUSED') return 'Connection refused';
  if (inner.code === 'ENOTFOUND' || inner.code === 'EAI_AGAIN') return 'The host name could not be resolved';
  return `${inner.code ?? inner.name ?? 'Error'}: ${inner.message}`;
}

export function createHttpSender(options: HttpSenderOptions): HttpSender {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const agent = new Agent({
    connections: options.connectionsPerOrigin ?? 32,
    connect: { lookup: createGuardedLookup(options.resolve ?? defaultResolve, options.allowPrivateUrls), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  async function send(delivery: OutgoingDelivery): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      // A literal address never reaches the lookup hook, so it is judged here.
      const literal = literalAddress(new URL(delivery.url).hostname);
      if (literal !== null && !options.allowPrivateUrls && !isPublicAddress(literal)) {
        return { kind: 'no_response', error: `${literal} is not a public address`, durationMs: elapsed() };
      }
      const signal = AbortSignal.timeout(timeoutMs);
      const response = await request(delivery.url, {
        method: 'POST',
        dispatcher: agent,
        headers: delivery.headers,
        body: delivery.body,
        signal,
      });
      const bodyExcerpt = await readExcerpt(response.body);
      // Leave the rest unread; destroying frees the socket's share of the timeout for the next attempt.
      response.body.destroy();
      const retryAfter = response.headers['retry-after'];
      return {
        kind: 'response',
        status: response.statusCode,
        durationMs: elapsed(),
        bodyExcerpt,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
      };
    } catch (error) {
      return { kind: 'no_response', error: describeFailure(error, timeoutMs), durationMs: elapsed() };
    }
  }

  return { send, close: () => agent.close() };
}
