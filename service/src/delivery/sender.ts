// Posts one signed delivery over a keep-alive pool and reports what happened as a tagged outcome.
import type { Millis } from '../core/time';
import { Agent, type Dispatcher as UndiciDispatcher } from 'undici';
import { DELIVERY_RULES } from '@jobhooks/client/contract/delivery-rules';
import { ALLOW_PRIVATE_URLS_HINT, literalAddress, isPublicAddress } from '../security/address-policy';
import { bodyExcerpt, keptHeaders, maskedHeaderNames, RESPONSE_EXCERPT_BYTES, storableText } from './answer-excerpt';
import { createGuardedLookup, type HostsTable, resolverWith } from './guarded-lookup';

/** An attempt without a complete response in time is a failure (docs/decisions.md#7-what-counts-as-success). */
export const ATTEMPT_TIMEOUT_MS: Millis = DELIVERY_RULES.attemptTimeoutSeconds * 1000;

export interface OutgoingDelivery {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
}

export type SendOutcome =
  | {
      kind: 'response';
      status: number;
      durationMs: Millis;
      /** The body's first 4 KiB as storable text (answer-excerpt.ts). */
      bodyExcerpt: string;
      retryAfter: string | null;
      /** The response's headers as the delivery log keeps them (answer-excerpt.ts): masked, within 4 KiB. */
      headers?: Record<string, string>;
    }
  | { kind: 'no_response'; error: string; durationMs: Millis };

export type Send = (delivery: OutgoingDelivery) => Promise<SendOutcome>;

export interface HttpSender {
  send: Send;
  close(): Promise<void>;
}

export interface HttpSenderOptions {
  allowPrivateUrls: boolean;
  timeoutMs?: Millis;
  /** Tests only: names that resolve to the addresses given, without DNS (plain data, so it reaches the thread). */
  hosts?: HostsTable;
  /** Most connections to one origin (scheme, host and port). */
  connectionsPerOrigin?: number;
  /** Response headers whose values are masked besides the credential headers always masked. */
  maskedResponseHeaders?: readonly string[];
}

/** The reason an attempt is aborted at its time limit; describeFailure names it. */
class AttemptTimeoutError extends Error {
  override name = 'TimeoutError';
}

interface Answer {
  status: number;
  bodyExcerpt: string;
  retryAfter: string | null;
  headers: Record<string, string>;
}

/**
 * POSTs through undici's low-level `dispatch` with a handler rather than `request()`, which wraps every
 * response body in a stream and every stage in a promise: it costs the sender thread about a third less CPU per
 * delivery (docs/performance.md#measurements-behind-choices-in-the-code gives the measurements).
 *
 * One timer bounds the whole attempt (waiting for a connection, connecting, sending, headers, body). The
 * first 4 KiB of the body are kept; once they are in, the attempt is answered and the rest is not awaited.
 */
function post(
  agent: Agent,
  url: URL,
  delivery: OutgoingDelivery,
  timeoutMs: Millis,
  masked: ReadonlySet<string>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let status = 0;
    let retryAfter: string | null = null;
    let responseHeaders: Record<string, string> = {};
    let controller: UndiciDispatcher.DispatchController | null = null;
    let settled = false;

    const timer = setTimeout(() => end(new AttemptTimeoutError()), timeoutMs);
    /** Settles once; a body left unread or an attempt over its limit is aborted, which frees or closes its socket. */
    function end(error: Error | null): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error !== null) reject(error);
      else
        resolve({
          status,
          retryAfter,
          headers: responseHeaders,
          bodyExcerpt: bodyExcerpt(Buffer.concat(chunks, size)),
        });
      controller?.abort(error ?? new Error('The response excerpt is complete'));
    }

    try {
      agent.dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: delivery.headers,
          body: delivery.body,
        },
        {
          onRequestStart(started) {
            controller = started;
            // The limit passed while the request waited for a connection: it is not sent.
            if (settled) started.abort(new AttemptTimeoutError());
          },
          onResponseStart(_controller, statusCode, headers) {
            status = statusCode;
            const value = headers['retry-after'];
            retryAfter = typeof value === 'string' ? value : null;
            responseHeaders = keptHeaders(headers, masked);
          },
          onResponseData(_controller, chunk) {
            if (settled) return;
            chunks.push(chunk);
            size += chunk.length;
            if (size >= RESPONSE_EXCERPT_BYTES) end(null);
          },
          onResponseEnd() {
            controller = null;
            end(null);
          },
          onResponseError(_controller, error) {
            controller = null;
            end(error);
          },
        },
      );
    } catch (error) {
      end(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** The error text of an attempt with no response; storable whatever a library put in its message. */
function describeFailure(error: unknown, timeoutMs: Millis): string {
  return storableText(failureText(error, timeoutMs));
}

function failureText(error: unknown, timeoutMs: Millis): string {
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
  const masked = maskedHeaderNames(options.maskedResponseHeaders);
  const agent = new Agent({
    connections: options.connectionsPerOrigin ?? 32,
    connect: { lookup: createGuardedLookup(resolverWith(options.hosts), options.allowPrivateUrls), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  async function send(delivery: OutgoingDelivery): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const url = new URL(delivery.url);
      // A literal address never reaches the lookup hook, so it is judged here (unless every address is allowed).
      const literal = options.allowPrivateUrls ? null : literalAddress(url.hostname);
      if (literal !== null && !isPublicAddress(literal)) {
        return {
          kind: 'no_response',
          error: `${literal} is not a public address; ${ALLOW_PRIVATE_URLS_HINT}.`,
          durationMs: elapsed(),
        };
      }
      const answer = await post(agent, url, delivery, timeoutMs, masked);
      return { kind: 'response', ...answer, durationMs: elapsed() };
    } catch (error) {
      return { kind: 'no_response', error: describeFailure(error, timeoutMs), durationMs: elapsed() };
    }
  }

  return { send, close: () => agent.close() };
}
