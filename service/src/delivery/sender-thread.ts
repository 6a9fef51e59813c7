// An HttpSender whose HTTP work (undici, sockets, response parsing, time limits) runs in a worker thread, so
// delivery uses a second core: the main thread keeps SQLite, signing and the API. Requests made in one turn of
// the event loop cross to the thread in one message, and outcomes come back the same way (sender-worker.ts).
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ATTEMPT_TIMEOUT_MS, type HttpSender, type HttpSenderOptions, type OutgoingDelivery, type SendOutcome } from './sender';
import type { QueuedRequest, SenderThreadReply, SenderThreadRequest } from './sender-thread-messages';

/** Everything but an injected resolver, which cannot cross into a thread (tests that need one use createHttpSender). */
export type SenderThreadOptions = Omit<HttpSenderOptions, 'resolve'>;

export interface ThreadedSender extends HttpSender {
  /** Stops the thread as a crash would: its sends in flight fail, and the next send starts a new thread. */
  terminateThread(): Promise<void>;
}

/**
 * The thread holds little at once (the requests in flight), and V8's default young generation (tens of MB per
 * isolate) is mostly garbage waiting to be swept. Capped, the service's peak RSS with a million-delivery backlog
 * went from 320 MB to 264-282 MB in npm run bench runs, at the same delivery rate.
 */
const THREAD_YOUNG_GENERATION_MB = 4;

/** How long close waits for the thread to finish its requests (each ends within its own limit) before stopping it. */
const CLOSE_GRACE_MS = ATTEMPT_TIMEOUT_MS + 1_000;

interface Waiting {
  resolve: (outcome: SendOutcome) => void;
  reject: (error: Error) => void;
}

function spawnWorker(options: SenderThreadOptions): Worker {
  // Built, the worker is the JavaScript file next to this one; run from TypeScript source (tests), tsx compiles it.
  const fromSource = extname(__filename) === '.ts';
  return new Worker(join(__dirname, `sender-worker${fromSource ? '.ts' : '.js'}`), {
    workerData: options,
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
    execArgv: fromSource ? ['--require', 'tsx/cjs'] : [],
  });
}

/**
 * A Buffer may be a view of a larger shared slab, and a structured clone copies the whole slab: such a body is
 * copied to its own bytes first.
 */
function ownBytes(body: Buffer): Uint8Array {
  return body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
}

export function createThreadedSender(options: SenderThreadOptions): ThreadedSender {
  const waiting = new Map<number, Waiting>();
  let nextId = 0;
  let queued: QueuedRequest[] = [];
  let worker: Worker | null = null;
  let closed = false;

  /** The thread is started on the first send, and again after it stopped: most processes in tests never send. */
  function currentWorker(): Worker {
    if (worker !== null) return worker;
    const started = spawnWorker(options);
    let failure: Error | null = null;
    started.on('message', (reply: SenderThreadReply) => {
      for (const { id, outcome } of reply.outcomes) {
        waiting.get(id)?.resolve(outcome);
        waiting.delete(id);
      }
    });
    started.on('error', (error) => {
      failure = error;
    });
    started.on('exit', (code) => {
      if (worker === started) worker = null;
      // Whether these reached their endpoints is unknown. They fail as the service's fault, not the endpoint's:
      // no attempt is recorded, the leases run out, and the deliveries are sent again.
      const error = new Error(`The sender thread stopped (exit code ${code})${failure ? `: ${failure.message}` : ''}`);
      for (const pending of waiting.values()) pending.reject(error);
      waiting.clear();
    });
    worker = started;
    return started;
  }

  function flush(): void {
    const requests = queued;
    queued = [];
    currentWorker().postMessage({ kind: 'send', requests } satisfies SenderThreadRequest);
  }

  async function stop(thread: Worker, graceful: boolean): Promise<void> {
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    if (!graceful) {
      await thread.terminate();
      return exited;
    }
    thread.postMessage({ kind: 'close' } satisfies SenderThreadRequest);
    const timer = setTimeout(() => void thread.terminate(), CLOSE_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  return {
    send(delivery: OutgoingDelivery): Promise<SendOutcome> {
      if (closed) return Promise.reject(new Error('The sender is closed'));
      const id = nextId++;
      if (queued.length === 0) queueMicrotask(flush);
      queued.push({ id, url: delivery.url, body: ownBytes(delivery.body), headers: delivery.headers });
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    },
    terminateThread: async () => {
      if (worker !== null) await stop(worker, false);
    },
    close: async () => {
      closed = true;
      if (worker !== null) await stop(worker, true);
    },
  };
}
