// The messages between the main thread and the sender thread (sender-thread.ts, sender-worker.ts).
import type { SendOutcome } from './sender';

export interface QueuedRequest {
  id: number;
  url: string;
  body: Uint8Array;
  headers: Record<string, string>;
}

export type SenderThreadRequest = { kind: 'send'; requests: QueuedRequest[] } | { kind: 'close' };

export interface SenderThreadReply {
  outcomes: Array<{ id: number; outcome: SendOutcome }>;
}
