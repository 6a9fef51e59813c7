// Posting a run's events in order and saying what became of each on stderr: posted, already posted (a repeat of
// the same run), or not posted after the client's retries, as one sentence that says what to check.
import { type Connection, describeApiFailure, type IngestInput } from '@jobhooks/client';
import type { EventPoster } from './io';

export interface Reporter {
  /** Posts the events one after the other; resolves with how many could not be posted. */
  post(events: readonly IngestInput[]): Promise<number>;
}

const deliveries = (count: number) => `${count} ${count === 1 ? 'delivery' : 'deliveries'}`;

export function reporterFor(poster: EventPoster, connection: Connection, say: (line: string) => void): Reporter {
  return {
    async post(events) {
      let failed = 0;
      for (const event of events) {
        const what = `${event.event_type} of run ${event.run.runId}`;
        try {
          const taken = await poster.ingest(event);
          say(
            taken.duplicate
              ? `${what} was already posted (${taken.event_id}): nothing new was sent.`
              : `${what} posted (${taken.event_id}, ${deliveries(taken.deliveries)}).`,
          );
        } catch (error) {
          failed += 1;
          say(`${what} was not posted: ${describeApiFailure(error, connection)}`);
        }
      }
      return failed;
    },
  };
}
