// Traces as a dependency: ingestion and each attempt ask a Tracing for their W3C trace context, and tell it how
// they ended. Without exported traces it is createHeadersOnlyTracing here (random ids and strings, nothing else);
// with them, observability/otel-tracing.ts, loaded only then (docs/tracing.md).
import type { Micros, Millis } from './time';
import type { RandomBytes } from './random';
import {
  childTraceparent,
  cleanTracestate,
  type EventTrace,
  formatTraceparent,
  type HeaderValue,
  parseTraceparent,
  randomSpanId,
  randomTraceId,
} from './trace-context';

/** The trace headers of an ingestion request. */
export interface IncomingTrace {
  traceparent: HeaderValue;
  tracestate: HeaderValue;
}

/** What an ingestion did, told when it ends. */
export interface IngestionEnd {
  accountId: number;
  /** The event recorded, or for a duplicate the event it repeats. */
  eventId: string;
  eventType: string;
  runId: string;
  jobId: string;
  queued: number;
  skipped: number;
  duplicate: boolean;
}

export interface IngestionSpan {
  /** The context stored with the event: its `traceparent` names this span, the parent of every attempt. */
  readonly trace: EventTrace;
  end(result: IngestionEnd): void;
  /** The event could not be recorded. */
  fail(error: unknown): void;
}

/** What an attempt's span says about it from the start (an attempt's plan has this shape). */
export interface AttemptStart {
  target: {
    deliveryId: string | null;
    webhookId: string;
    eventId: string;
    eventType: string;
    attempt: number;
  };
  url: string;
  /** The event's trace context; null for a test send, or an event stored before traces were kept. */
  trace: EventTrace | null;
  isTest?: boolean;
  byPerson?: boolean;
}

/** How an attempt went, in the words of the metrics' outcome label. */
export type AttemptOutcomeLabel = 'succeeded' | 'failed_status' | 'gone' | 'no_response';

export interface AttemptEnd {
  /** The response's status, or null when none came. */
  status: number | null;
  outcome: AttemptOutcomeLabel;
  /** What the delivery log says went wrong; null for a success. */
  error: string | null;
  /** The request's own time, as the delivery log records it. */
  durationMs: Millis;
}

export interface AttemptSpan {
  /** The `traceparent` the request carries: the event's trace, this attempt's own span id. */
  readonly traceparent: string;
  /** The event's `tracestate`, passed on; null when it has none. */
  readonly tracestate: string | null;
  end(result: AttemptEnd): void;
}

export interface Tracing {
  /** True when spans are exported (OTEL_* configured); false when only the headers are made. */
  readonly exporting: boolean;
  ingestion(incoming: IncomingTrace): IngestionSpan;
  /** An attempt's span, begun at `startedAt`: the start the delivery log records as its requested_at. */
  attempt(start: AttemptStart, startedAt: Micros): AttemptSpan;
  /** Exports what is still buffered, then stops. */
  close(): Promise<void>;
}

const ignore = (): void => undefined;

/**
 * The trace context of an event taken in without exported traces: the caller's trace when its `traceparent` is
 * valid (its sampled flag and `tracestate` kept), a new one otherwise, and a span id of its own for the ingestion.
 * A new trace is marked sampled: no receiver's parent-based sampler then stops tracing the requests it traced
 * before they carried a `traceparent`.
 */
export function eventTraceWithoutExport(incoming: IncomingTrace, random: RandomBytes): EventTrace {
  const parent = parseTraceparent(incoming.traceparent);
  return {
    traceparent: formatTraceparent({
      traceId: parent?.traceId ?? randomTraceId(random),
      spanId: randomSpanId(random),
      sampled: parent?.sampled ?? true,
    }),
    tracestate: parent === null ? null : cleanTracestate(incoming.tracestate),
  };
}

/** An attempt's headers without exported traces: a child of the event's ingestion span, or a new trace. */
export function attemptHeadersWithoutExport(trace: EventTrace | null, random: RandomBytes): AttemptSpan {
  const spanId = randomSpanId(random);
  if (trace === null) {
    return {
      traceparent: formatTraceparent({ traceId: randomTraceId(random), spanId, sampled: true }),
      tracestate: null,
      end: ignore,
    };
  }
  return { traceparent: childTraceparent(trace.traceparent, spanId), tracestate: trace.tracestate, end: ignore };
}

/** No traces exported: every request still carries `traceparent`, so a receiver's trace continues the event's. */
export function createHeadersOnlyTracing(random: RandomBytes): Tracing {
  return {
    exporting: false,
    ingestion: (incoming) => ({ trace: eventTraceWithoutExport(incoming, random), end: ignore, fail: ignore }),
    attempt: (start) => attemptHeadersWithoutExport(start.trace, random),
    close: () => Promise.resolve(),
  };
}
