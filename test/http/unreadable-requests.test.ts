// Requests that never reach a route (Node.js cannot parse them, or the router refuses their path) are answered in
// the error envelope like every other error, and change nothing.
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { answerUnreadableRequest } from '../../service/src/http/unreadable-request';
import { ADMIN_TOKEN, type Harness, startHarness, webhookPath, webhooksPath } from '../support/harness';

let h: Harness;
let origin: URL;
beforeAll(async () => {
  h = await startHarness();
  origin = new URL(await h.listen());
});
afterAll(async () => {
  await h.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Connects to 127.0.0.1:`port`, writes `request` as it is and half-closes (when given), and reads to the close. */
function readConnection(port: number, request?: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    if (request !== undefined) socket.end(request);
  });
}

/** Sends `request` to the service as it is, and reads the whole answer. */
async function sendRaw(request: string | Buffer): Promise<RawAnswer> {
  const text = await readConnection(Number(origin.port), request);
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** What a client reads from a connection whose server side is handed to `handle`. */
async function readHandled(handle: (socket: Socket) => void): Promise<string> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await readConnection((server.address() as AddressInfo).port);
  } finally {
    server.close();
  }
}

const auth = `Authorization: Token ${ADMIN_TOKEN}`;
const path = webhooksPath();

test.each([
  [
    'a body shorter than its Content-Length',
    `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"x"}`,
    400,
    'malformed_request',
  ],
  [
    'a broken chunked body',
    `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    400,
    'malformed_request',
  ],
  ['a method HTTP has not', `FOO ${path} HTTP/1.1\r\nHost: x\r\n\r\n`, 400, 'malformed_request'],
  [
    'a raw byte a URL may not hold',
    Buffer.concat([
      Buffer.from(`GET ${path}?limit=`),
      Buffer.from([0xef, 0xbc, 0x91]),
      Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
    ]),
    400,
    'malformed_request',
  ],
  [
    'headers larger than Node.js reads',
    `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${'t'.repeat(100_000)}\r\n\r\n`,
    431,
    'headers_too_large',
  ],
  [
    'an Expect it cannot meet',
    `GET ${path} HTTP/1.1\r\nHost: x\r\n${auth}\r\nExpect: foo\r\n\r\n`,
    417,
    'expectation_failed',
  ],
])('%s is answered in the envelope with its own status, and changes nothing', async (_what, request, status, code) => {
  const before = await h.db.snapshot();
  const answer = await sendRaw(request);
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  const envelope = JSON.parse(answer.body) as { data: unknown; status: Record<string, unknown> };
  expect(envelope).toEqual({
    data: null,
    status: { code: status, is_success: false, user_message: expect.any(String), developer_message: code },
  });
  expect(envelope.status.user_message).toMatch(/^The .+\.$/);
  expect(await h.db.snapshot()).toBe(before);
});

test("the parser's reason is in the sentence, so the caller knows what to fix", async () => {
  const answer = await sendRaw(`FOO ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  expect(JSON.parse(answer.body).status.user_message).toBe(
    'The request is not valid HTTP: invalid method encountered.',
  );
  const headers = await sendRaw(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(70_000)}\r\n\r\n`);
  expect(JSON.parse(headers.body).status.user_message).toBe("The request's headers are larger than 16 KiB.");
});

test('an id longer than the router reads is a 404 like any unknown id, with or without a token', async () => {
  for (const headers of [{}, { authorization: `Token ${ADMIN_TOKEN}` }] as Array<Record<string, string>>) {
    const response = await fetch(`${origin.origin}${webhookPath(`wsu_${'a'.repeat(300)}`)}`, { headers });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      data: null,
      status: {
        code: 404,
        is_success: false,
        user_message: 'The URL path is not valid, so it names no resource.',
        developer_message: 'not_found',
      },
    });
  }
});

test('a request that does not arrive in time is answered 408 in the envelope', async () => {
  // Node.js gives up on headers after headersTimeout (60 s by default): its error is handed over as it would be.
  const answer = await readHandled((socket) => {
    const timeout = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    answerUnreadableRequest(timeout, socket);
  });
  expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
  expect(JSON.parse(answer.split('\r\n\r\n')[1]!)).toEqual({
    data: null,
    status: {
      code: 408,
      is_success: false,
      user_message: 'The request did not arrive in time.',
      developer_message: 'request_timeout',
    },
  });
});

test('a connection whose response has started is closed without an answer written into it', async () => {
  // As Node.js's own handler: the response attached to the connection has sent its headers.
  const received = await readHandled((socket) => {
    Object.assign(socket, { _httpMessage: { headersSent: true } });
    answerUnreadableRequest(Object.assign(new Error('Parse Error'), { code: 'HPE_INVALID_METHOD' }), socket);
  });
  expect(received).toBe('');
});
