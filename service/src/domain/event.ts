// A job-run event taken in.
import type { Micros } from '../core/time';
import type { EventType } from '@jobhooks/client/contract';

/** A job-run event taken in. Times are microseconds since the epoch. */
export interface EventRecord {
  id: string;
  accountId: number;
  eventType: EventType;
  runId: string;
  jobId: string;
  createdAt: Micros;
}
