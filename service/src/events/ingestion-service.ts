// Takes in job-run events (the route's schema has validated them): records the event, with its trace context, and
// its deliveries in one transaction, and wakes the dispatcher.
import type { IngestedEvent, IngestEventBody } from '@jobhooks/client/contract';
import { type Clock, nanosToMicros } from '../core/clock';
import type { IdGenerator } from '../core/ids';
import type { EventTrace } from '../core/trace-context';
import type { IncomingTrace, Tracing } from '../core/tracing';
import type { AccountRecord } from '../domain/account';
import type { Store } from '../store/store';
import { planDeliveries } from './fan-out';

export interface IngestionServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** The ingestion's span; the event keeps its trace context, which every attempt continues. */
  tracing: Tracing;
  /** Called after deliveries were queued, so they are sent without waiting for the next poll. */
  onQueued: () => void;
}

export type IngestionService = ReturnType<typeof createIngestionService>;

export function createIngestionService(deps: IngestionServiceDeps) {
  const { store, clock, ids } = deps;

  /** `incoming`: the request's `traceparent` and `tracestate`; the event joins the caller's trace when valid. */
  async function ingest(
    account: AccountRecord,
    body: IngestEventBody,
    incoming: IncomingTrace,
  ): Promise<IngestedEvent> {
    const span = deps.tracing.ingestion(incoming);
    const occurredAtNanos = clock.nowNanos();
    const eventId = ids.next('event');
    let result: IngestedEvent;
    try {
      result = await record(account, body, { eventId, occurredAtNanos, trace: span.trace });
    } catch (error) {
      span.fail(error);
      throw error;
    }
    span.end({
      accountId: account.id,
      eventId: result.event_id,
      eventType: body.event_type,
      runId: body.run.runId,
      jobId: body.run.jobId,
      queued: result.deliveries,
      skipped: result.skipped,
      duplicate: result.duplicate,
    });
    return result;
  }

  async function record(
    account: AccountRecord,
    body: IngestEventBody,
    at: { eventId: string; occurredAtNanos: bigint; trace: EventTrace },
  ): Promise<IngestedEvent> {
    const { eventId, occurredAtNanos } = at;
    const outcome = await store.events.record(
      {
        id: eventId,
        accountId: account.id,
        eventType: body.event_type,
        runId: body.run.runId,
        jobId: body.run.jobId,
        createdAt: nanosToMicros(occurredAtNanos),
        trace: at.trace,
      },
      (webhooks) =>
        planDeliveries(webhooks, {
          accountId: account.id,
          eventId,
          eventType: body.event_type,
          occurredAtNanos,
          run: body.run,
          ids,
        }),
    );
    if (outcome.kind === 'duplicate') return { event_id: outcome.eventId, deliveries: 0, skipped: 0, duplicate: true };
    if (outcome.queued > 0) deps.onQueued();
    return { event_id: eventId, deliveries: outcome.queued, skipped: outcome.skipped, duplicate: false };
  }

  return { ingest };
}
