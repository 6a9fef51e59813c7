// Delivery statistics (jobhooks' own, docs/api-contract.md#17-delivery-statistics): counts of attempts and of
// deliveries, and response times, per hour over a window, for one webhook or a whole account.
import { z } from 'zod';

const Digits = z.string().regex(/^\d+$/);
const Count = z.number().int().nonnegative();
/** A response-time percentile, in ms: the upper bound of the duration bucket holding it; null with no attempts. */
const Percentile = z.number().int().nullable();

/** The windows the statistics cover: the last 24 hours or the last 7 days, in whole hours up to the current one. */
export const STATISTICS_WINDOWS = ['24h', '7d'] as const;
export const StatisticsWindow = z.enum(STATISTICS_WINDOWS, { error: 'window must be 24h or 7d' });
export type StatisticsWindow = z.infer<typeof StatisticsWindow>;

/** Each window's length, in whole hours. */
export const STATISTICS_WINDOW_HOURS: Record<StatisticsWindow, number> = { '24h': 24, '7d': 7 * 24 };

/** A window's length for sentences: "24 hours", "7 days". */
export function windowText(window: StatisticsWindow): string {
  const hours = STATISTICS_WINDOW_HOURS[window];
  return hours > 24 && hours % 24 === 0 ? `${hours / 24} days` : `${hours} hours`;
}

/** The statistics' query: `window`, 24h by default. (A query schema stays unnamed: its fields are parameters.) */
export const StatisticsQuery = z.object({ window: StatisticsWindow.default('24h') });

const counts = {
  /** Attempts made (test sends left out) whose answer was a 2xx within 10 s. */
  attempts_succeeded: Count,
  attempts_failed: Count,
  /** Deliveries whose last attempt, made in this period, succeeded; or failed with no retry left (or a 410). */
  deliveries_succeeded: Count,
  deliveries_failed: Count,
  p50_ms: Percentile,
  p95_ms: Percentile,
};

export const StatisticsBucket = z
  .object({
    /** The hour's start, microseconds since the epoch. */
    start: Digits,
    ...counts,
  })
  .meta({ id: 'StatisticsBucket', description: 'One hour: attempts and deliveries by outcome, and response times.' });
export type StatisticsBucket = z.infer<typeof StatisticsBucket>;

export const StatisticsTotals = z
  .object({
    ...counts,
    /** attempts_succeeded / (attempts_succeeded + attempts_failed), from 0 to 1; null with no attempts. */
    success_rate: z.number().nullable(),
  })
  .meta({ id: 'StatisticsTotals', description: 'The whole window: attempts and deliveries by outcome, rates.' });
export type StatisticsTotals = z.infer<typeof StatisticsTotals>;

const windowFields = {
  window: StatisticsWindow,
  /** The first hour's start and the end of the current hour, microseconds. */
  since: Digits,
  until: Digits,
  bucket_seconds: z.number().int(),
  totals: StatisticsTotals,
  /** Every hour of the window, oldest first, hours without attempts included. */
  buckets: z.array(StatisticsBucket),
  /** Deliveries waiting for an attempt (now), and those of them whose attempt is due. */
  pending: Count,
  due: Count,
};

export const StatisticsMarker = z
  .object({
    kind: z.enum(['circuit_opened', 'archived']),
    /** Microseconds since the epoch. */
    at: Digits,
    detail: z.string(),
  })
  .meta({
    id: 'StatisticsMarker',
    description:
      "A moment in the webhook's state: its endpoint's circuit opened (it is still not closed), or it was archived.",
  });
export type StatisticsMarker = z.infer<typeof StatisticsMarker>;

export const WebhookStatistics = z
  .object({
    webhook_id: z.string(),
    ...windowFields,
    markers: z.array(StatisticsMarker),
  })
  .meta({ id: 'WebhookStatistics', description: "One webhook's deliveries per hour over the window." });
export type WebhookStatistics = z.infer<typeof WebhookStatistics>;

export const WebhookStatisticsSummary = z
  .object({
    webhook_id: z.string(),
    totals: StatisticsTotals,
    /** Attempts per hour over the window, oldest first, succeeded and failed: the list's sparklines. */
    trend_succeeded: z.array(Count),
    trend_failed: z.array(Count),
    pending: Count,
    due: Count,
    /**
     * The first failed attempt since the last success, or since the last day (24 hours) without a failed attempt
     * (microseconds); null when the last attempt succeeded.
     */
    failing_since: Digits.nullable(),
  })
  .meta({ id: 'WebhookStatisticsSummary', description: "A webhook's line of the account's statistics." });
export type WebhookStatisticsSummary = z.infer<typeof WebhookStatisticsSummary>;

export const AccountStatistics = z
  .object({
    ...windowFields,
    /** Every webhook of the account, in the order they were created. */
    webhooks: z.array(WebhookStatisticsSummary),
  })
  .meta({ id: 'AccountStatistics', description: "The account's deliveries per hour, and each webhook's summary." });
export type AccountStatistics = z.infer<typeof AccountStatistics>;
