// SQLite access to the hourly rollup of the delivery log (delivery_stats): added to with each batch of results,
// read by the statistics endpoints and /metrics, purged with the log.
import type { StatsHour } from '../../domain/delivery-stats';
import type { DeliveryLogStore, HourTrend } from '../store';
import { ADD_TO_HOUR, COUNT_COLUMNS, statsFromRow, type StatsRow, statsValues, SUMMED_COUNTS } from '../stats-rows';
import type { SqliteDatabase } from './database';

type StatsReads = Pick<DeliveryLogStore, 'hoursOfWebhook' | 'hoursOfAccount' | 'totalsByWebhook' | 'trendsByWebhook'>;

/** Adds hours to the rollup, each to its webhook's row of that hour; a deleted webhook's hours are dropped. */
export function prepareStatsWrite(db: SqliteDatabase): (hours: readonly StatsHour[]) => void {
  const placeholders = COUNT_COLUMNS.map(() => '?').join(', ');
  const add = db.prepare<unknown[]>(
    `INSERT INTO delivery_stats (webhook_id, account_id, hour, ${COUNT_COLUMNS.join(', ')})
     SELECT id, account_id, ?, ${placeholders} FROM webhooks WHERE id = ?
     ${ADD_TO_HOUR}`,
  );
  return (hours) => {
    for (const hour of hours) add.run(hour.hour, ...statsValues(hour), hour.webhookId);
  };
}

export function createStatsReads(db: SqliteDatabase): StatsReads {
  const ofWebhook = db.prepare<[string, number, number], StatsRow>(
    `SELECT * FROM delivery_stats WHERE webhook_id = ? AND hour >= ? AND hour < ? ORDER BY hour`,
  );
  // The account's hours added up in the database: a week of 1,000 webhooks is 168 rows here, not 168,000.
  const ofAccount = db.prepare<[number, number, number], StatsRow>(
    `SELECT '' AS webhook_id, hour, ${SUMMED_COUNTS} FROM delivery_stats
      WHERE account_id = ? AND hour >= ? AND hour < ? GROUP BY hour ORDER BY hour`,
  );
  const ofEveryAccount = db.prepare<[number, number], StatsRow>(
    `SELECT '' AS webhook_id, hour, ${SUMMED_COUNTS} FROM delivery_stats
      WHERE hour >= ? AND hour < ? GROUP BY hour ORDER BY hour`,
  );
  // Per webhook, what a list of 1,000 webhooks needs: its totals (one row each) and two counts per hour, never every
  // column of every hour (a day of 1,000 webhooks is 24,000 rows of 17 columns).
  const totalsByWebhook = db.prepare<[number, number, number, number], StatsRow>(
    `SELECT webhook_id, ? AS hour, ${SUMMED_COUNTS} FROM delivery_stats
      WHERE account_id = ? AND hour >= ? AND hour < ? GROUP BY webhook_id`,
  );
  const trendsByWebhook = db.prepare<[number, number, number], HourTrend>(
    `SELECT webhook_id AS webhookId, hour, attempts_succeeded AS succeeded, attempts_failed AS failed
       FROM delivery_stats WHERE account_id = ? AND hour >= ? AND hour < ?`,
  );
  return {
    hoursOfWebhook: async (webhookId, { since, until }) => ofWebhook.all(webhookId, since, until).map(statsFromRow),
    hoursOfAccount: async (accountId, { since, until }) =>
      (accountId === null ? ofEveryAccount.all(since, until) : ofAccount.all(accountId, since, until)).map(
        statsFromRow,
      ),
    totalsByWebhook: async (accountId, { since, until }) =>
      totalsByWebhook.all(since, accountId, since, until).map(statsFromRow),
    trendsByWebhook: async (accountId, { since, until }) => trendsByWebhook.all(accountId, since, until),
  };
}
