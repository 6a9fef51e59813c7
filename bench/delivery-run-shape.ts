// The shape of the fan-out delivery run that `npm run bench` measures (on SQLite and with --postgres) and that
// bench/postgres-alternate.ts repeats per variant: one definition, so that a comparison measures the bench's own run.
import { loadConfig } from '../service/src/config';

/**
 * The dispatcher limits the service will run with: by default 256 requests in flight, 16 per webhook (the
 * service process inherits this environment, so the bench reads the same).
 */
export const DISPATCH_LIMITS = loadConfig(process.env).delivery;

/** Connections that post the run's events. */
export const INGEST_CONCURRENCY = 64;

export interface DeliveryRunShape {
  /**
   * As many webhooks as it takes for the per-webhook limit not to bind (256 / 16 = 16), so the service and its
   * ceiling (an undici loop at the dispatcher's concurrency) run the same number of requests at once.
   */
  webhooks: number;
  /** Events posted in the measured run: enough for about the deliveries asked for over the webhooks. */
  events: number;
  /** Events posted before it, to the same webhooks, so that the service is measured warm. */
  warmUpEvents: number;
  /** The warm-up's deliveries: as many of the ceiling's requests are replayed untimed first. */
  warmUpDeliveries: number;
}

/** The full run: 50,000 deliveries after 5,000; `--quick`: 5,000 after 1,000. */
export function deliveryRunShape(quick: boolean): DeliveryRunShape {
  const deliveries = quick ? 5_000 : 50_000;
  const warmUp = quick ? 1_000 : 5_000;
  const webhooks = Math.ceil(DISPATCH_LIMITS.maxInFlight / DISPATCH_LIMITS.maxInFlightPerWebhook);
  const warmUpEvents = Math.ceil(warmUp / webhooks);
  return {
    webhooks,
    events: Math.ceil(deliveries / webhooks),
    warmUpEvents,
    warmUpDeliveries: warmUpEvents * webhooks,
  };
}
