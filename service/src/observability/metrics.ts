// Prometheus metrics of the delivery pipeline (prom-client), served at GET /metrics.
import type { Millis } from '../core/time';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type Clock, nowMicros, nowMillis } from '../core/clock';
import type { DispatchObserver } from '../delivery/dispatcher';
import type { EndpointHealthRegistry } from '../delivery/endpoint-health';
import { outcomeLabel } from '../delivery/retry-policy';
import type { SendOutcome } from '../delivery/sender';
import type { Store } from '../store/store';
import { hoursOfWindow, totalsOf } from '../webhooks/statistics-service';
import { STATISTICS_WINDOW_HOURS, STATISTICS_WINDOWS, type StatisticsWindow } from '@jobhooks/client/contract';

/** Attempt latency buckets in seconds, up to the 10 s attempt limit. */
const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Due-to-sent buckets in seconds: a healthy pipeline sends in milliseconds; an open circuit holds for minutes. */
const WAIT_BUCKETS_SECONDS = [0.001, 0.005, 0.025, 0.1, 0.25, 1, 5, 15, 60, 300, 1800];

export interface Metrics {
  registry: Registry;
  observer: DispatchObserver;
}

export interface MetricSources {
  store: Store;
  clock: Clock;
  health: EndpointHealthRegistry;
  inFlight: () => number;
  /** How old the backlog gauges may be when another instance counted them; one process counts on every scrape. */
  backlogMaxAgeMs: Millis;
}

// A type, not an interface: it must be assignable to the store's ClusterResult (named counts).
type Backlog = { due: number; archived: number; circuitsNotClosed: number };

/**
 * A count of the cluster's, made by one instance per `backlogMaxAgeMs` and read by the others, so N instances
 * scraped every 15 s count it once, not N times; the gauges of one scrape share one read.
 */
function sharedReading<T extends Backlog | RateCounts>(
  sources: MetricSources,
  name: string,
  count: () => Promise<T>,
): () => Promise<T> {
  let reading: Promise<T> | null = null;
  return () => {
    reading ??= sources.store.cluster
      .latest(name, nowMillis(sources.clock), sources.backlogMaxAgeMs, count)
      .finally(() => {
        reading = null;
      });
    return reading;
  };
}

/** The cluster's backlog: due deliveries, archived webhooks and open circuits. */
function backlogOf(sources: MetricSources): () => Promise<Backlog> {
  const count = async (): Promise<Backlog> => ({
    due: await sources.store.deliveries.countDue(nowMicros(sources.clock)),
    archived: await sources.store.webhooks.countArchived(),
    circuitsNotClosed: await sources.health.notClosed(),
  });
  // Named for its fields: an older instance's result under the old name ('backlog-gauges') had no circuit count,
  // and reading it during a rolling upgrade would fail the scrape.
  return sharedReading(sources, 'cluster-gauges', count);
}

type RateCounts = Record<string, number>;

/**
 * The rates the statistics endpoints show, for the whole cluster, from the same hourly rollup: attempts and
 * finished deliveries by outcome over each window (24 h, 7 days), read as often as the backlog gauges.
 */
function ratesOf(sources: MetricSources): () => Promise<RateCounts> {
  const count = async (): Promise<RateCounts> => {
    const now = nowMicros(sources.clock);
    const hours = await sources.store.deliveryLog.hoursOfAccount(null, hoursOfWindow('7d', now));
    const counts: RateCounts = {};
    for (const window of STATISTICS_WINDOWS) {
      const { since } = hoursOfWindow(window, now);
      const totals = totalsOf(hours.filter((h) => h.hour >= since));
      counts[`${window}.attempts.succeeded`] = totals.attempts_succeeded;
      counts[`${window}.attempts.failed`] = totals.attempts_failed;
      counts[`${window}.deliveries.succeeded`] = totals.deliveries_succeeded;
      counts[`${window}.deliveries.failed`] = totals.deliveries_failed;
    }
    return counts;
  };
  return sharedReading(sources, 'delivery-rates', count);
}

function ratioOf(counts: RateCounts, window: StatisticsWindow): number {
  const succeeded = counts[`${window}.attempts.succeeded`] ?? 0;
  const all = succeeded + (counts[`${window}.attempts.failed`] ?? 0);
  // No attempt, nothing failed: a ratio of 1 keeps an alert on "ratio < x" quiet for an idle service.
  return all === 0 ? 1 : succeeded / all;
}

export function createMetrics(sources: MetricSources): Metrics {
  // A registry per service, not the global one, so several services can live in one process (tests).
  const registry = new Registry();
  const registers = [registry];
  const backlog = backlogOf(sources);
  collectDefaultMetrics({ register: registry, prefix: 'jobhooks_' });
  const attempts = new Counter({
    name: 'jobhooks_delivery_attempts_total',
    help: 'Delivery attempts, by outcome: succeeded (2xx), failed_status (other status), gone (410), no_response.',
    labelNames: ['outcome'],
    registers,
  });
  const latency = new Histogram({
    name: 'jobhooks_delivery_attempt_duration_seconds',
    help: 'Time from sending a delivery to its complete response or failure.',
    buckets: LATENCY_BUCKETS_SECONDS,
    registers,
  });
  const waited = new Histogram({
    name: 'jobhooks_delivery_wait_seconds',
    help: 'Time from an attempt coming due to its request being sent (claim, a free slot, a closed circuit).',
    buckets: WAIT_BUCKETS_SECONDS,
    registers,
  });
  new Gauge({
    name: 'jobhooks_endpoint_circuit_open',
    help: "Webhooks whose endpoint's circuit is open (or waiting for its probe), in the whole cluster (aggregate instances with max, not sum): nothing is sent to them but the probe.",
    registers,
    async collect() {
      this.set((await backlog()).circuitsNotClosed);
    },
  });
  new Gauge({
    name: 'jobhooks_deliveries_due',
    help: 'Pending deliveries whose next attempt is due and not yet claimed, in the whole cluster (aggregate instances with max, not sum).',
    registers,
    async collect() {
      this.set((await backlog()).due);
    },
  });
  new Gauge({
    name: 'jobhooks_deliveries_in_flight',
    help: 'Delivery requests being sent now by this process.',
    registers,
    collect() {
      this.set(sources.inFlight());
    },
  });
  new Gauge({
    name: 'jobhooks_subscriptions_archived',
    help: 'Webhooks archived after repeated failures or a 410 Gone, in the whole cluster (aggregate instances with max, not sum).',
    registers,
    async collect() {
      this.set((await backlog()).archived);
    },
  });
  const rates = ratesOf(sources);
  const windows = `windows: ${STATISTICS_WINDOWS.map((w) => `${w} (${STATISTICS_WINDOW_HOURS[w]} whole hours)`).join(', ')}`;
  /** A gauge of one count by window and outcome, e.g. `attempts` for `24h.attempts.failed`. */
  const countGauge = (name: string, count: 'attempts' | 'deliveries', help: string) =>
    new Gauge({
      name,
      help: `${help}; ${windows}.`,
      labelNames: ['window', 'outcome'],
      registers,
      async collect() {
        const counts = await rates();
        for (const window of STATISTICS_WINDOWS)
          for (const outcome of ['succeeded', 'failed'])
            this.set({ window, outcome }, counts[`${window}.${count}.${outcome}`] ?? 0);
      },
    });
  countGauge(
    'jobhooks_delivery_attempts_in_window',
    'attempts',
    'Delivery attempts (test sends left out) by outcome over the window, in the whole cluster, as the statistics endpoints count them',
  );
  countGauge(
    'jobhooks_deliveries_finished_in_window',
    'deliveries',
    'Deliveries finished by outcome (succeeded; failed with no retry left) over the window, in the whole cluster',
  );
  new Gauge({
    name: 'jobhooks_delivery_success_ratio',
    help: `Attempts that succeeded over all attempts in the window (1 when there were none), in the whole cluster; ${windows}.`,
    labelNames: ['window'],
    registers,
    async collect() {
      const counts = await rates();
      for (const window of STATISTICS_WINDOWS) this.set({ window }, ratioOf(counts, window));
    },
  });
  return {
    registry,
    observer: {
      attemptFinished(outcome, waitedMicros) {
        attempts.inc({ outcome: outcomeLabel(outcome) });
        latency.observe(outcome.durationMs / 1000);
        waited.observe(Math.max(0, waitedMicros) / 1_000_000);
      },
    },
  };
}
