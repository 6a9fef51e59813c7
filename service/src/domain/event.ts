// A job-run event taken in.
import type { Micros } from '../core/time';
import type { EventType } from '@jobhooks/client/contract';
import type { EventTrace } from '../core/trace-context';

/** A job-run event taken in. Times are microseconds since the epoch. */
export interface EventRecord {
  id: string;
  accountId: number;
  eventType: EventType;
  runId: string;
  jobId: string;
  createdAt: Micros;
  /** Its trace context (docs/tracing.md): every attempt of the event is a child of its ingestion span. */
  trace: EventTrace;
}
