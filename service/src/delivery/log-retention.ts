// Keeps the delivery log to its retention period (7 days: docs/decisions.md#12-delivery-log-and-retention) with a
// periodic purge, which also forgets the secrets rotations replaced once their overlap is over
// (docs/decisions.md#6a-secret-rotation). Several instances on one database purge once per period between them.
import { type Micros, microsFromSeconds, type Millis } from '../core/time';
import { DELIVERY_RULES } from '@jobhooks/client/contract';
import { type Clock, nowMicros, nowMillis } from '../core/clock';
import type { ClusterStore, DeliveryLogStore, WebhooksStore } from '../store/store';

export const LOG_RETENTION_MICROS: Micros = microsFromSeconds(DELIVERY_RULES.logRetentionDays * 86_400);
/** The purge runs this often; a row may outlive the retention period by at most this much. */
export const PURGE_INTERVAL_MS: Millis = 15 * 60 * 1000;
/**
 * Another instance's purge younger than this makes this instance's turn a no-op. A minute shorter than the
 * interval, so that clocks a little apart do not make every instance skip a period.
 */
export const PURGE_SHARED_MAX_AGE_MS: Millis = PURGE_INTERVAL_MS - 60_000;

export interface RetentionJob {
  start(): void;
  /** Stops the timer; resolves once a purge under way has finished, so the store can be closed after it. */
  stop(): Promise<void>;
  /** Purges now; returns what was deleted. */
  purge(): ReturnType<DeliveryLogStore['purgeOlderThan']>;
}

export function createRetentionJob(deps: {
  log: Pick<DeliveryLogStore, 'purgeOlderThan'>;
  webhooks: Pick<WebhooksStore, 'dropEndedSecrets'>;
  cluster: Pick<ClusterStore, 'latest'>;
  clock: Clock;
  onError: (error: unknown) => void;
}): RetentionJob {
  let timer: NodeJS.Timeout | null = null;
  /** Settles when every turn started so far has (never rejects: failures go to onError). */
  let turnsUnderWay: Promise<void> = Promise.resolve();
  const purge = () => deps.log.purgeOlderThan(nowMicros(deps.clock) - LOG_RETENTION_MICROS);
  // Both halves run even if one fails; a failed turn leaves no result, so the next turn (on any instance) retries.
  const purgeAndDropSecrets = async () => {
    const [purged, dropped] = await Promise.allSettled([
      purge(),
      deps.webhooks.dropEndedSecrets(nowMicros(deps.clock)),
    ]);
    if (purged.status === 'rejected') throw purged.reason;
    if (dropped.status === 'rejected') throw dropped.reason;
    return { ...purged.value, secrets: dropped.value };
  };
  const run = () => {
    const turn = deps.cluster
      .latest('log-retention', nowMillis(deps.clock), PURGE_SHARED_MAX_AGE_MS, purgeAndDropSecrets)
      .then(() => undefined, deps.onError);
    turnsUnderWay = Promise.all([turnsUnderWay, turn]).then(() => undefined);
  };
  return {
    start() {
      run();
      timer = setInterval(run, PURGE_INTERVAL_MS);
      timer.unref();
    },
    async stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      await turnsUnderWay;
    },
    purge,
  };
}
