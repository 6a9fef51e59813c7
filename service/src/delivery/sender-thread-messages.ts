// The messages between the main thread and the sender thread (sender-thread.ts, sender-worker.ts).
import type { SendOutcome } from './sender';

export interface QueuedRequest {
  id: number;
  url: string;
  body: Uint8Array;
  headers: Record<string, string>;
}

export type SenderThreadRequest = { kind: 'send'; requests: QueuedRequest[] } | { kind: 'close' };

/** `ready` once the thread can take requests (its modules are loaded), then the outcomes as they finish. */
export type SenderThreadReply =
  { kind: 'ready' } | { kind: 'outcomes'; outcomes: Array<{ id: number; outcome: SendOutcome }> };
