// Requests Node.js refuses before Fastify sees them (not HTTP, headers too large, too slow, an Expect it cannot
// meet): answered in the error envelope too, as every error is (docs/api-contract.md#8-errors), then the connection
// is closed, since the rest of its bytes cannot be read as requests.
import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { envelopeOf, type EnvelopeSpec } from './error-envelope';

/** A parser's error, as Node.js's clientError event gives it. */
interface ClientError extends Error {
  code?: string;
  /** llhttp's reason, e.g. "Invalid method encountered". */
  reason?: string;
}

function specFor(error: ClientError): EnvelopeSpec {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'request_timeout', message: 'The request did not arrive in time.' };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const limit = `${Math.floor(maxHeaderSize / 1024)} KiB`;
    return { status: 431, code: 'headers_too_large', message: `The request's headers are larger than ${limit}.` };
  }
  const reason = typeof error.reason === 'string' && error.reason !== '' ? `: ${error.reason.toLowerCase()}` : '';
  return { status: 400, code: 'malformed_request', message: `The request is not valid HTTP${reason}.` };
}

/** An envelope's body and the headers of an answer after which the connection closes. */
function closingAnswer(spec: EnvelopeSpec): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(envelopeOf(spec));
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'close',
    'content-length': String(Buffer.byteLength(body)),
  };
  return { body, headers };
}

/** The whole answer, written on a socket whose request could not be parsed. */
function rawAnswer(spec: EnvelopeSpec): string {
  const { body, headers } = closingAnswer(spec);
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${spec.status} ${STATUS_CODES[spec.status] ?? ''}\r\n${lines.join('')}\r\n${body}`;
}

/** How long the answer may take to leave before the connection is dropped anyway (a peer that reads nothing). */
const ANSWER_GRACE_MS = 5_000;

/**
 * Fastify's clientErrorHandler: the envelope instead of Fastify's own JSON. As Node.js does by default, a connection
 * whose response has started (its headers sent) is only closed: an answer written into the middle of it would
 * garble both.
 */
export function answerUnreadableRequest(error: ClientError, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // The response attached to the connection, as Node.js's own handler looks at it.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!socket.writable || answering?.headersSent === true) {
    socket.destroy();
    return;
  }
  socket.end(rawAnswer(specFor(error)), () => socket.destroy());
  setTimeout(() => socket.destroy(), ANSWER_GRACE_MS).unref();
}

/** An Expect header other than 100-continue, which Node.js would refuse with an empty 417. */
export function refuseUnmetExpectations(server: Server): void {
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const { body, headers } = closingAnswer({
      status: 417,
      code: 'expectation_failed',
      message: 'The Expect header cannot be met: only Expect: 100-continue is supported.',
    });
    response.writeHead(417, headers).end(body);
  });
}
