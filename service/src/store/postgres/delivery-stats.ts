// PostgreSQL access to the hourly rollup of the delivery log (delivery_stats): added to with each batch of results,
// read by the statistics endpoints and /metrics, purged with the log.
import type pg from 'pg';
import type { StatsHour } from '../../domain/delivery-stats';
import type { DeliveryLogStore, HourTrend } from '../store';
import { ADD_TO_HOUR, COUNT_COLUMNS, statsFromRow, type StatsRow, statsValues, SUMMED_COUNTS } from '../stats-rows';
import { asColumns, type PgDatabase, prepared } from './database';

type StatsReads = Pick<DeliveryLogStore, 'hoursOfWebhook' | 'hoursOfAccount' | 'totalsByWebhook' | 'trendsByWebhook'>;

/** One array per column; a batch's hours are one per webhook and hour, so no row is upserted twice. */
const ADD_HOURS = prepared(`
  INSERT INTO delivery_stats (webhook_id, account_id, hour, ${COUNT_COLUMNS.join(', ')})
  SELECT u.webhook_id, w.account_id, u.hour, ${COUNT_COLUMNS.map((c) => `u.${c}`).join(', ')}
    FROM unnest($1::text[], $2::bigint[], ${COUNT_COLUMNS.map((_, i) => `$${i + 3}::integer[]`).join(', ')})
         AS u(webhook_id, hour, ${COUNT_COLUMNS.join(', ')})
    JOIN webhooks w ON w.id = u.webhook_id
  ${ADD_TO_HOUR}`);

/** Adds hours to the rollup in the caller's transaction; a deleted webhook's hours are dropped. */
export async function addStatsHours(client: Pick<pg.PoolClient, 'query'>, hours: readonly StatsHour[]): Promise<void> {
  if (hours.length === 0) return;
  const rows = hours.map((h) => [h.webhookId, h.hour, ...statsValues(h)]);
  await client.query(ADD_HOURS, asColumns(rows, COUNT_COLUMNS.length + 2));
}

const OF_WEBHOOK = `SELECT * FROM delivery_stats WHERE webhook_id = $1 AND hour >= $2 AND hour < $3 ORDER BY hour`;
// The account's hours added up in the database: a week of 1,000 webhooks is 168 rows here, not 168,000.
const OF_ACCOUNT = `
  SELECT '' AS webhook_id, hour, ${SUMMED_COUNTS} FROM delivery_stats
   WHERE ($1::bigint IS NULL OR account_id = $1) AND hour >= $2 AND hour < $3 GROUP BY hour ORDER BY hour`;
// Per webhook, what a list of 1,000 webhooks needs: its totals (one row each) and two counts per hour, never every
// column of every hour (a day of 1,000 webhooks is 24,000 rows of 17 columns).
const TOTALS_BY_WEBHOOK = `
  SELECT webhook_id, $2::bigint AS hour, ${SUMMED_COUNTS} FROM delivery_stats
   WHERE account_id = $1 AND hour >= $2 AND hour < $3 GROUP BY webhook_id`;
const TRENDS_BY_WEBHOOK = `
  SELECT webhook_id AS "webhookId", hour, attempts_succeeded AS succeeded, attempts_failed AS failed
    FROM delivery_stats WHERE account_id = $1 AND hour >= $2 AND hour < $3`;

export function createPgStatsReads(db: PgDatabase): StatsReads {
  const read = async (sql: string, values: unknown[]) => (await db.query<StatsRow>(sql, values)).rows.map(statsFromRow);
  return {
    hoursOfWebhook: (webhookId, { since, until }) => read(OF_WEBHOOK, [webhookId, since, until]),
    hoursOfAccount: (accountId, { since, until }) => read(OF_ACCOUNT, [accountId, since, until]),
    totalsByWebhook: (accountId, { since, until }) => read(TOTALS_BY_WEBHOOK, [accountId, since, until]),
    trendsByWebhook: async (accountId, { since, until }) =>
      (await db.query<HourTrend>(TRENDS_BY_WEBHOOK, [accountId, since, until])).rows,
  };
}
