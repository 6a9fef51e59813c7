// An HttpSender whose HTTP work (undici, sockets, response parsing, time limits) runs in a worker thread, so
// delivery uses a second core: the main thread keeps SQLite, signing and the API. Requests made in one turn of
// the event loop cross to the thread in one message, and outcomes come back the same way (sender-worker.ts).
import type { Millis } from '../core/time';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../core/package-files';
import { createTurnBatch } from '../core/turn-batch';
import {
  ATTEMPT_TIMEOUT_MS,
  type HttpSender,
  type HttpSenderOptions,
  type OutgoingDelivery,
  type SendOutcome,
} from './sender';
import type { QueuedRequest, SenderThreadReply, SenderThreadRequest } from './sender-thread-messages';

export interface SenderThreadOptions extends HttpSenderOptions {
  /**
   * Tests only: how long a send waits for the thread's answer, instead of the attempt limit plus
   * REPLY_MARGIN_MS. Shorter than the attempt limit, it lets a test stand for an answer that is lost.
   */
  replyDeadlineMs?: Millis;
  /** Tests only: the thread waits this long before it says it is ready, as a slow start would. */
  startupDelayMs?: Millis;
}

/** What the thread is started with (sender-worker.ts). */
export type WorkerOptions = Omit<SenderThreadOptions, 'replyDeadlineMs'>;

export interface ThreadedSender extends HttpSender {
  /** Stops the thread as a crash would: its sends in flight fail, and the next send starts a new thread. */
  terminateThread(): Promise<void>;
}

/**
 * The thread ends every request within the attempt limit and answers in the next turn of its event loop, so an
 * answer later than that was lost (a bug or a stuck thread). The margin covers the message each way and a busy
 * thread (a burst of outcomes, a garbage collection), so an answer that is only a little late is not given up.
 * With the 10 s limit, 12 s stays under the shortest lease (15 s, see
 * docs/decisions.md#19-delivery-concurrency-and-leases): the send gives up its slot before the delivery can be
 * claimed again.
 */
const REPLY_MARGIN_MS = 2_000;
/** The latest a send with the attempt limit is answered: by then its outcome, or the loss of it, is known. */
export const REPLY_DEADLINE_MS: Millis = ATTEMPT_TIMEOUT_MS + REPLY_MARGIN_MS;

/**
 * The thread holds little at once (the requests in flight), and V8's default young generation (tens of MB per
 * isolate) is mostly garbage waiting to be swept: capped, the service's peak RSS with a million-delivery backlog is
 * lower. Capped too far, it is collected so often that V8's helper threads and the thread itself spend more CPU per
 * delivery. docs/performance.md#measurements-behind-choices-in-the-code gives the figures for both.
 */
const THREAD_YOUNG_GENERATION_MB = 16;

/** How long close waits for the thread to finish its requests (each ends within its own limit) before stopping it. */
const CLOSE_GRACE_MS = ATTEMPT_TIMEOUT_MS + 1_000;

interface Waiting {
  resolve: (outcome: SendOutcome) => void;
  reject: (error: Error) => void;
  /** Null until the thread is ready: a thread's start-up is not part of the attempt it delays. */
  deadline: NodeJS.Timeout | null;
}

function spawnWorker(options: WorkerOptions): Worker {
  const entry = workerEntry(__dirname, 'sender-worker');
  return new Worker(entry.path, {
    workerData: options,
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
    execArgv: entry.execArgv,
  });
}

/**
 * A Buffer may be a view of a larger shared slab, and a structured clone copies the whole slab: such a body is
 * copied to its own bytes first.
 */
function ownBytes(body: Buffer): Uint8Array {
  return body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
}

/** The sends waiting for the thread's answer, each with its own deadline, which runs once the thread is ready. */
function createWaitingList(deadlineMs: Millis) {
  const waiting = new Map<number, Waiting>();
  let threadReady = false;

  /** Removes a send and its timer; undefined once it is settled, so an answer after its deadline is ignored. */
  function take(id: number): Waiting | undefined {
    const pending = waiting.get(id);
    if (pending === undefined) return undefined;
    waiting.delete(id);
    if (pending.deadline !== null) clearTimeout(pending.deadline);
    return pending;
  }

  const startDeadline = (id: number) => setTimeout(() => take(id)?.reject(lost()), deadlineMs);

  // A lost answer fails the send the way a stopped thread does, as the service's fault: whether the request
  // reached its endpoint, and what it answered, is unknown. A failed attempt would be recorded against the
  // endpoint (using up its retries for a fault of ours); a rejection records none, frees the dispatcher's slot,
  // and the delivery is sent again when its lease runs out.
  const lost = () => new Error(`The sender thread gave no answer within ${deadlineMs / 1000} s`);

  return {
    add(id: number): Promise<SendOutcome> {
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject, deadline: threadReady ? startDeadline(id) : null });
      });
    },
    /** The thread is ready: the deadlines of the sends that waited for it start now. */
    ready(): void {
      threadReady = true;
      for (const [id, pending] of waiting) pending.deadline ??= startDeadline(id);
    },
    answer(id: number, outcome: SendOutcome): void {
      take(id)?.resolve(outcome);
    },
    /** The thread stopped: every send waiting for it fails, and the next thread must be ready again. */
    failAll(error: Error): void {
      threadReady = false;
      for (const id of [...waiting.keys()]) take(id)?.reject(error);
    },
  };
}

export function createThreadedSender(options: SenderThreadOptions): ThreadedSender {
  const { replyDeadlineMs, ...threadOptions } = options;
  const waiting = createWaitingList(replyDeadlineMs ?? (options.timeoutMs ?? ATTEMPT_TIMEOUT_MS) + REPLY_MARGIN_MS);
  let nextId = 0;
  let worker: Worker | null = null;
  let closed = false;

  /** The thread is started on the first send, and again after it stopped: most processes in tests never send. */
  function currentWorker(): Worker {
    if (worker !== null) return worker;
    const started = spawnWorker(threadOptions);
    let failure: Error | null = null;
    started.on('message', (reply: SenderThreadReply) => {
      if (reply.kind === 'ready') waiting.ready();
      else for (const { id, outcome } of reply.outcomes) waiting.answer(id, outcome);
    });
    started.on('error', (error) => {
      failure = error;
    });
    started.on('exit', (code) => {
      if (worker === started) worker = null;
      // Whether these reached their endpoints is unknown. They fail as the service's fault, not the endpoint's:
      // no attempt is recorded, the leases run out, and the deliveries are sent again.
      const reason = failure ? `: ${failure.message}` : '';
      waiting.failAll(new Error(`The sender thread stopped (exit code ${code})${reason}`));
    });
    worker = started;
    return started;
  }

  // The sends of one job (a dispatcher turn launches many) cross to the thread in one message.
  const queued = createTurnBatch<QueuedRequest>((requests) => {
    currentWorker().postMessage({ kind: 'send', requests } satisfies SenderThreadRequest);
  }, queueMicrotask);

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
      queued.add({ id, url: delivery.url, body: ownBytes(delivery.body), headers: delivery.headers });
      return waiting.add(id);
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
