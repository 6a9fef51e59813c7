// Keeps the delivery log to its retention period (7 days: docs/decisions.md#12-delivery-log-and-retention) with a
// periodic purge, which also forgets the secrets rotations replaced once their overlap is over
// (docs/decisions.md#6a-secret-rotation).
import { type Clock, nowMicros } from '../core/clock';
import type { DeliveryLogStore, WebhooksStore } from '../store/store';

export const LOG_RETENTION_MICROS = 7 * 24 * 3600 * 1_000_000;
/** The purge runs this often; a row may outlive the retention period by at most this much. */
export const PURGE_INTERVAL_MS = 15 * 60 * 1000;

export interface RetentionJob {
  start(): void;
  stop(): void;
  /** Purges now; returns what was deleted. */
  purge(): ReturnType<DeliveryLogStore['purgeOlderThan']>;
}

export function createRetentionJob(deps: {
  log: Pick<DeliveryLogStore, 'purgeOlderThan'>;
  webhooks: Pick<WebhooksStore, 'dropEndedSecrets'>;
  clock: Clock;
  onError: (error: unknown) => void;
}): RetentionJob {
  let timer: NodeJS.Timeout | null = null;
  const purge = () => deps.log.purgeOlderThan(nowMicros(deps.clock) - LOG_RETENTION_MICROS);
  const run = () => {
    purge().catch(deps.onError);
    deps.webhooks.dropEndedSecrets(nowMicros(deps.clock)).catch(deps.onError);
  };
  return {
    start() {
      run();
      timer = setInterval(run, PURGE_INTERVAL_MS);
      timer.unref();
    },
    stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
    purge,
  };
}
