// The delivery statistics of one webhook or a whole account (docs/api-contract.md#17-delivery-statistics), read
// from the hourly rollup of the log (domain/delivery-stats.ts), never from the log itself: an answer costs one row
// per webhook and hour of the window, however many attempts the log holds.
import type {
  AccountStatistics,
  StatisticsBucket,
  StatisticsMarker,
  StatisticsTotals,
  StatisticsWindow,
  WebhookStatistics,
  WebhookStatisticsSummary,
} from '@jobhooks/client/contract';
import { STATISTICS_WINDOW_HOURS } from '@jobhooks/client/contract';
import { type Clock, nowMicros } from '../core/clock';
import { addInto, emptyHour, HOUR_MICROS, hourOf, quantileBound, type StatsHour } from '../domain/delivery-stats';
import type { WebhookRecord } from '../domain/webhook';
import { circuitAt } from '../delivery/endpoint-health';
import { findWebhook } from '../store/find-webhook';
import type { HourTrend, Store, StatsWindow, WebhookBacklog } from '../store/store';

/** Webhooks read per page when the account's are listed: an account holds 1,000 by default. */
const WEBHOOKS_PER_READ = 1000;

export interface StatisticsServiceDeps {
  store: Store;
  clock: Clock;
}

/** The window's hours: whole hours up to and including the current one. */
export function hoursOfWindow(window: StatisticsWindow, now: number): StatsWindow {
  const until = hourOf(now) + HOUR_MICROS;
  return { since: until - STATISTICS_WINDOW_HOURS[window] * HOUR_MICROS, until };
}

/** Every hour of the window, oldest first, with zeros where the rollup has no row. */
function everyHour(hours: readonly StatsHour[], range: StatsWindow): StatsHour[] {
  const byHour = new Map<number, StatsHour>();
  for (const h of hours) byHour.set(h.hour, addInto(byHour.get(h.hour) ?? emptyHour(h.webhookId, h.hour), h));
  const all: StatsHour[] = [];
  for (let hour = range.since; hour < range.until; hour += HOUR_MICROS)
    all.push(byHour.get(hour) ?? emptyHour('', hour));
  return all;
}

function countsOf(h: StatsHour) {
  return {
    attempts_succeeded: h.attemptsSucceeded,
    attempts_failed: h.attemptsFailed,
    deliveries_succeeded: h.deliveriesSucceeded,
    deliveries_failed: h.deliveriesFailed,
    p50_ms: quantileBound(h.durations, 0.5),
    p95_ms: quantileBound(h.durations, 0.95),
  };
}

export function bucketView(h: StatsHour): StatisticsBucket {
  return { start: String(h.hour), ...countsOf(h) };
}

export function totalsOf(hours: readonly StatsHour[]): StatisticsTotals {
  const sum = hours.reduce((all, h) => addInto(all, h), emptyHour('', 0));
  const attempts = sum.attemptsSucceeded + sum.attemptsFailed;
  return { ...countsOf(sum), success_rate: attempts === 0 ? null : sum.attemptsSucceeded / attempts };
}

const NO_BACKLOG = { pending: 0, due: 0 };

/** What a webhook's answer and the account's share: the window, its hours and totals, and the backlog. */
function windowView(
  window: StatisticsWindow,
  range: StatsWindow,
  hours: readonly StatsHour[],
  backlog: { pending: number; due: number },
) {
  return {
    window,
    since: String(range.since),
    until: String(range.until),
    bucket_seconds: HOUR_MICROS / 1_000_000,
    totals: totalsOf(hours),
    buckets: everyHour(hours, range).map(bucketView),
    pending: backlog.pending,
    due: backlog.due,
  };
}

export type StatisticsService = ReturnType<typeof createStatisticsService>;

export function createStatisticsService(deps: StatisticsServiceDeps) {
  const { store } = deps;

  async function backlogOf(accountId: number, now: number): Promise<Map<string, WebhookBacklog>> {
    return new Map((await store.deliveries.backlogOf(accountId, now)).map((b) => [b.webhookId, b]));
  }

  /** The archive, and the opening of an endpoint's circuit that is not closed yet, when inside the window. */
  function markersOf(record: WebhookRecord, range: StatsWindow, now: number): StatisticsMarker[] {
    const markers: StatisticsMarker[] = [];
    // The record carries its endpoint's health as the store keeps it, on either backend.
    const circuit = circuitAt(record.endpointHealth, now);
    if (circuit.state !== 'closed' && circuit.since >= range.since)
      markers.push({
        kind: 'circuit_opened',
        at: String(circuit.since),
        detail: circuit.state === 'open' ? 'The circuit opened: deliveries are held back' : 'The circuit is probing',
      });
    if (record.archivedAt !== null && record.archivedAt >= range.since)
      markers.push({ kind: 'archived', at: String(record.archivedAt), detail: record.archivedReason ?? 'Archived' });
    return markers.sort((a, b) => Number(a.at) - Number(b.at));
  }

  async function webhooksOf(accountId: number): Promise<WebhookRecord[]> {
    const all: WebhookRecord[] = [];
    for (;;) {
      const { items, total } = await store.webhooks.list(
        accountId,
        { offset: all.length, limit: WEBHOOKS_PER_READ },
        'job',
      );
      all.push(...items);
      if (items.length === 0 || all.length >= total) return all;
    }
  }

  function summaryOf(
    record: WebhookRecord,
    totals: StatsHour | undefined,
    trend: { succeeded: number[]; failed: number[] } | undefined,
    hours: number,
    backlog: WebhookBacklog | undefined,
  ): WebhookStatisticsSummary {
    const { pending, due } = backlog ?? NO_BACKLOG;
    const zeros = () => new Array<number>(hours).fill(0);
    return {
      webhook_id: record.id,
      totals: totalsOf(totals === undefined ? [] : [totals]),
      trend_succeeded: trend?.succeeded ?? zeros(),
      trend_failed: trend?.failed ?? zeros(),
      pending,
      due,
      failing_since: record.failingSince === null ? null : String(record.failingSince),
    };
  }

  /** Each webhook's attempts per hour as two arrays over the window's hours, zeros where the rollup has no row. */
  function trendsOf(rows: readonly HourTrend[], range: StatsWindow, hours: number) {
    const trends = new Map<string, { succeeded: number[]; failed: number[] }>();
    for (const row of rows) {
      let trend = trends.get(row.webhookId);
      if (trend === undefined) {
        trend = { succeeded: new Array<number>(hours).fill(0), failed: new Array<number>(hours).fill(0) };
        trends.set(row.webhookId, trend);
      }
      const at = (row.hour - range.since) / HOUR_MICROS;
      trend.succeeded[at] = row.succeeded;
      trend.failed[at] = row.failed;
    }
    return trends;
  }

  return {
    async webhook(accountId: number, webhookId: string, window: StatisticsWindow): Promise<WebhookStatistics> {
      const record = await findWebhook(store, accountId, webhookId);
      const now = nowMicros(deps.clock);
      const range = hoursOfWindow(window, now);
      const [hours, backlog] = await Promise.all([
        store.deliveryLog.hoursOfWebhook(record.id, range),
        backlogOf(accountId, now),
      ]);
      return {
        webhook_id: record.id,
        ...windowView(window, range, hours, backlog.get(record.id) ?? NO_BACKLOG),
        markers: markersOf(record, range, now),
      };
    },

    async account(accountId: number, window: StatisticsWindow): Promise<AccountStatistics> {
      const now = nowMicros(deps.clock);
      const range = hoursOfWindow(window, now);
      const [hours, totals, trendRows, backlog, webhooks] = await Promise.all([
        store.deliveryLog.hoursOfAccount(accountId, range),
        store.deliveryLog.totalsByWebhook(accountId, range),
        store.deliveryLog.trendsByWebhook(accountId, range),
        backlogOf(accountId, now),
        webhooksOf(accountId),
      ]);
      const totalsOfWebhook = new Map(totals.map((t) => [t.webhookId, t]));
      const hourCount = STATISTICS_WINDOW_HOURS[window];
      const trends = trendsOf(trendRows, range, hourCount);
      const all = { pending: 0, due: 0 };
      for (const b of backlog.values()) {
        all.pending += b.pending;
        all.due += b.due;
      }
      return {
        ...windowView(window, range, hours, all),
        webhooks: webhooks.map((record) =>
          summaryOf(record, totalsOfWebhook.get(record.id), trends.get(record.id), hourCount, backlog.get(record.id)),
        ),
      };
    },
  };
}
