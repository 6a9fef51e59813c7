// Posting a run's events in order and saying what became of each on stderr: posted, already posted (a repeat of
// the same run), or not posted after the client's retries or the deadline, as one sentence that says what to check.
import { type Connection, describeApiFailure, type IngestInput, type RetryWait } from '@jobhooks/client';
import type { EventPoster } from './io';

export interface Reporter {
  /** Posts the events one after the other; resolves with how many could not be posted. */
  post(events: readonly IngestInput[]): Promise<number>;
  /**
   * Runs the posts that end a run (and waits for any still under way) within the deadline: says on stderr that it
   * is waiting when they take more than a moment, and gives every post up when the time is up.
   */
  finish(posting: () => Promise<number>): Promise<number>;
}

export interface Deadline {
  /** How long the posts after a run may take, all together. */
  seconds: number;
  /** A signal that aborts after `ms` (the clock, passed in). */
  timeout(ms: number): AbortSignal;
}

/** The default of --post-timeout: a CI step waits this long at most for the server after dbt has ended. */
export const DEFAULT_POST_TIMEOUT_SECONDS = 30;
/** After this long without the posts done, the wait is said on stderr. */
const WAIT_NOTICE_MS = 250;

/** A failure's sentence without the operation it starts with: "Post X failed: could not reach ..." -> "could not reach ...", "Post X failed (HTTP 500: ...)." -> "HTTP 500: ...". */
function withoutOperation(sentence: string, operation: string): string {
  if (sentence.startsWith(`${operation} failed: `)) return sentence.slice(`${operation} failed: `.length);
  const answered = new RegExp(`^${operation.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} failed \\((.*)\\)\\.$`).exec(
    sentence,
  );
  return answered === null ? sentence : `${answered[1]}.`;
}

const deliveries = (count: number) => `${count} ${count === 1 ? 'delivery' : 'deliveries'}`;

export function reporterFor(
  poster: EventPoster,
  connection: Connection,
  say: (line: string) => void,
  deadline: Deadline,
): Reporter {
  const giveUp = new AbortController();
  const gaveUp = `the server at ${connection.hostUrl} did not take it within ${deadline.seconds} s (--post-timeout).`;

  async function postOne(event: IngestInput): Promise<boolean> {
    const what = `${event.event_type} of run ${event.run.runId}`;
    if (giveUp.signal.aborted) {
      say(`${what} was not posted: ${gaveUp}`);
      return false;
    }
    // A post sent again after an answer that was lost (no answer, or a 5xx that a proxy may have put in its place)
    // may find its own first sending, which the server took. After a 408 or 429 the server took nothing.
    let retried = false;
    const onRetryWait = ({ cause }: RetryWait) => {
      if (cause.kind === 'unreachable' || cause.status >= 500) retried = true;
    };
    try {
      const taken = await poster.ingest(event, { signal: giveUp.signal, onRetryWait });
      if (!taken.duplicate) say(`${what} posted (${taken.event_id}, ${deliveries(taken.deliveries)}).`);
      else if (retried)
        say(`${what} posted (${taken.event_id}; its first answer was lost, and the server had taken it then).`);
      // A started event that is not new: right for a step run again, silently wrong for another dbt command
      // that got the same run id, whose events would all be taken for the first one's.
      else if (event.event_type === 'job.run.started')
        say(
          `warning: ${what} was already posted (${taken.event_id}): this run id was reported before, so no event ` +
            'of this run is new. That is right for a step run again; another dbt command of the same CI job ' +
            'needs its own --job-id or JOBHOOKS_DBT_RUN_ID.',
        );
      else say(`${what} was already posted (${taken.event_id}): nothing new was sent.`);
      return true;
    } catch (error) {
      // The client's sentence starts with what was tried, which this one has said already.
      const why = withoutOperation(describeApiFailure(error, connection), `Post ${what}`);
      say(`${what} was not posted: ${giveUp.signal.aborted ? gaveUp : why}`);
      return false;
    }
  }

  return {
    async post(events) {
      let failed = 0;
      for (const event of events) if (!(await postOne(event))) failed += 1;
      return failed;
    },
    async finish(posting) {
      const notice = deadline.timeout(WAIT_NOTICE_MS);
      const waiting = () =>
        say(
          `waiting for the server at ${connection.hostUrl} to take the run's events ` +
            `(at most ${deadline.seconds} s in all; --post-timeout).`,
        );
      notice.addEventListener('abort', waiting, { once: true });
      deadline.timeout(deadline.seconds * 1000).addEventListener('abort', () => giveUp.abort(), { once: true });
      try {
        return await posting();
      } finally {
        notice.removeEventListener('abort', waiting);
      }
    },
  };
}
