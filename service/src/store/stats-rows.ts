// The rows of the hourly rollup (delivery_stats) as both backends write and read them: one column list, one
// "add to the hour" upsert clause, one row mapper, so the two dialects cannot count differently.
import { DURATION_COLUMNS, type StatsHour } from '../domain/delivery-stats';

/** The counted columns, in the order statsValues gives their values. */
export const COUNT_COLUMNS = [
  'attempts_succeeded',
  'attempts_failed',
  'deliveries_succeeded',
  'deliveries_failed',
  ...DURATION_COLUMNS,
] as const;

/** An upsert's conflict clause: the batch's counts are added to the hour's row. */
export const ADD_TO_HOUR = `ON CONFLICT (webhook_id, hour) DO UPDATE SET ${COUNT_COLUMNS.map(
  (c) => `${c} = delivery_stats.${c} + excluded.${c}`,
).join(', ')}`;

/** `sum(c) AS c` for every counted column, for a query that adds hours together. */
export const SUMMED_COUNTS = COUNT_COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', ');

/** The counts of an hour, in COUNT_COLUMNS order. */
export function statsValues(hour: StatsHour): number[] {
  return [
    hour.attemptsSucceeded,
    hour.attemptsFailed,
    hour.deliveriesSucceeded,
    hour.deliveriesFailed,
    ...hour.durations,
  ];
}

export type StatsRow = { webhook_id: string; hour: number } & Record<(typeof COUNT_COLUMNS)[number], number>;

export function statsFromRow(row: StatsRow): StatsHour {
  return {
    webhookId: row.webhook_id,
    hour: Number(row.hour),
    attemptsSucceeded: Number(row.attempts_succeeded),
    attemptsFailed: Number(row.attempts_failed),
    deliveriesSucceeded: Number(row.deliveries_succeeded),
    deliveriesFailed: Number(row.deliveries_failed),
    durations: DURATION_COLUMNS.map((c) => Number(row[c as keyof StatsRow])),
  };
}
