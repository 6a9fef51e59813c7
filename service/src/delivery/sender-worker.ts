// The sender thread's entry point (see sender-thread.ts): sends each request it is given with an HttpSender,
// and answers with the outcomes that finished in one turn of its event loop, in one message.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { createTurnBatch } from '../core/turn-batch';
import { createHttpSender, type HttpSenderOptions, type SendOutcome } from './sender';
import type { WorkerOptions } from './sender-thread';
import type { SenderThreadReply, SenderThreadRequest } from './sender-thread-messages';

function serve(port: MessagePort, options: HttpSenderOptions): void {
  const sender = createHttpSender(options);
  const replies = createTurnBatch<{ id: number; outcome: SendOutcome }>((outcomes) =>
    port.postMessage({ kind: 'outcomes', outcomes } satisfies SenderThreadReply),
  );
  const reply = (id: number, outcome: SendOutcome) => replies.add({ id, outcome });

  port.on('message', (message: SenderThreadRequest) => {
    if (message.kind === 'close') {
      // Lets the requests in flight finish (each within its own time limit), then ends the thread.
      void sender.close().finally(() => port.close());
      return;
    }
    for (const { id, url, body, headers } of message.requests) {
      const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      void sender.send({ url, body: bytes, headers }).then((outcome) => reply(id, outcome));
    }
  });
  // The main thread starts each send's deadline from here: loading this module is not part of any attempt.
  port.postMessage({ kind: 'ready' } satisfies SenderThreadReply);
}

if (parentPort === null) throw new Error('sender-worker runs only as a worker thread (see sender-thread.ts)');
const port = parentPort;
const { startupDelayMs, ...options } = workerData as WorkerOptions;
if (startupDelayMs === undefined) serve(port, options);
else setTimeout(() => serve(port, options), startupDelayMs);
