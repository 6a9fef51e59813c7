// Takes in job-run events (the route's schema has validated them): records the event and its deliveries in
// one transaction, and wakes the dispatcher.
import type { IngestedEvent, IngestEventBody } from '@jobhooks/client/contract';
import { type Clock, nanosToMicros } from '../core/clock';
import type { IdGenerator } from '../core/ids';
import type { AccountRecord } from '../domain/account';
import type { Store } from '../store/store';
import { planDeliveries } from './fan-out';

export interface IngestionServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** Called after deliveries were queued, so they are sent without waiting for the next poll. */
  onQueued: () => void;
}

export type IngestionService = ReturnType<typeof createIngestionService>;

export function createIngestionService(deps: IngestionServiceDeps) {
  const { store, clock, ids } = deps;

  async function ingest(account: AccountRecord, body: IngestEventBody): Promise<IngestedEvent> {
    const occurredAtNanos = clock.nowNanos();
    const eventId = ids.next('event');
    const outcome = await store.events.record(
      {
        id: eventId,
        accountId: account.id,
        eventType: body.event_type,
        runId: body.run.runId,
        jobId: body.run.jobId,
        createdAt: nanosToMicros(occurredAtNanos),
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
