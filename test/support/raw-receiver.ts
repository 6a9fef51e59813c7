// A receiver on 127.0.0.1, port 0, that answers with exact bytes: any status line, headers and body, written in
// pieces with pauses, cut short, or a connection closed without a word. Node's own HTTP server cannot send what a
// broken or hostile receiver sends (NUL bytes, invalid UTF-8, malformed headers), so this one writes to the socket.
import { type AddressInfo, createServer, type Socket } from 'node:net';

/** One step of an answer: bytes to write, a pause, or the end of the connection. */
export type AnswerStep =
  | { write: Buffer }
  | { pauseMs: number }
  /** Ends the connection: 'end' sends FIN after what was written, 'destroy' resets it (RST). */
  | { close: 'end' | 'destroy' };

export interface RawRequest {
  /** The request line and headers, names lower-cased (a repeated header keeps its last value). */
  requestLine: string;
  headers: Record<string, string>;
  body: Buffer;
}

export type RawResponder = (request: RawRequest) => AnswerStep[];

export interface RawReceiver {
  url: string;
  requests: RawRequest[];
  respondWith(responder: RawResponder): void;
  close(): Promise<void>;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Splits the bytes read so far into a complete request and what follows it, or null while it is incomplete. */
function takeRequest(buffer: Buffer): { request: RawRequest; rest: Buffer } | null {
  const end = buffer.indexOf(HEADER_END);
  if (end < 0) return null;
  const [requestLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? '0');
  const bodyStart = end + HEADER_END.length;
  if (buffer.length < bodyStart + length) return null;
  return {
    request: { requestLine, headers, body: buffer.subarray(bodyStart, bodyStart + length) },
    rest: buffer.subarray(bodyStart + length),
  };
}

async function play(socket: Socket, steps: readonly AnswerStep[]): Promise<void> {
  for (const step of steps) {
    if (socket.destroyed) return;
    if ('write' in step) socket.write(step.write);
    else if ('pauseMs' in step) await new Promise((resolve) => setTimeout(resolve, step.pauseMs));
    else if (step.close === 'end') return void socket.end();
    else return void socket.destroy();
  }
  // Every answer ends its connection: a body without a length is then complete, and no answer leaks into the next.
  socket.end();
}

export async function startRawReceiver(responder: RawResponder): Promise<RawReceiver> {
  let current = responder;
  const requests: RawRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      if (answered) return;
      buffer = Buffer.concat([buffer, chunk]);
      const taken = takeRequest(buffer);
      if (taken === null) return;
      answered = true;
      requests.push(taken.request);
      void play(socket, current(taken.request));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A whole HTTP/1.1 answer with a Content-Length, as one write. */
export function plainAnswer(status: number, body: Buffer | string, headers: string[] = []): AnswerStep[] {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'latin1') : body;
  const head = [`HTTP/1.1 ${status} X`, ...headers, `Content-Length: ${bytes.length}`, '', ''].join('\r\n');
  return [{ write: Buffer.concat([Buffer.from(head, 'latin1'), bytes]) }];
}
