// The statistics endpoints with a million logged attempts (`npm run bench`, and `-- --postgres` on PostgreSQL):
// 1,000 webhooks, attempts spread over the last 7 days (test/support/seed-log.ts writes them and their hourly
// rollup), then autocannon on the account's statistics (24 hours and 7 days) and one webhook's (7 days), each
// taking turns with its ceiling, GET one webhook on the same service: the cheapest read of the API, the most a
// statistics read could hope for. Beside them, the time the account's attempts per hour over 7 days take counted
// from the log itself (one GROUP BY over the million rows): a part of what the rollup saves every request.
import { createWebhooksClient } from '@jobhooks/client';
import { inspectDatabase } from '../test/support/db-inspect';
import { seedLog } from '../test/support/seed-log';
import type { ServiceProcess } from '../test/support/service-process';
import { rateAgainstCeiling } from './api-throughput';
import { TOKEN } from './load';

export interface StatisticsOptions {
  start: () => Promise<ServiceProcess>;
  where: { dbPath: string; databaseUrl: string | null };
  accountId: number;
  webhooks: number;
  attempts: number;
  seconds: number;
  /** What the figures are named after: `stats` on SQLite, `pg_stats` on PostgreSQL. */
  prefix: string;
}

export type StatisticsFigures = Record<string, number>;

/**
 * One request at a time, for the service and its ceiling alike: the median latency is then what an operator waits
 * for a page's numbers, with no queueing behind other requests in it (a read of 1,000 webhooks' hours takes the
 * one Node.js thread for its whole length, so more connections would only queue).
 */
const CONNECTIONS = 1;
const SCAN_RUNS = 3;
const WEEK_SECONDS = 7 * 24 * 3600;
const HOUR_MICROS = 3600 * 1_000_000;

/** Three significant digits: an account read is thousands of times slower than the ceiling, and 0.000 says nothing. */
const ratio = (measured: number, ceiling: number) => Number((measured / ceiling).toPrecision(3));

/** The 7-day account numbers counted from the log, as an endpoint without the rollup would; the median ms. */
async function logScanMs(where: StatisticsOptions['where'], accountId: number, since: number): Promise<number> {
  const db = inspectDatabase(where);
  try {
    const times: number[] = [];
    for (let run = 0; run < SCAN_RUNS; run += 1) {
      const started = performance.now();
      await db.rows(
        `SELECT a.requested_at / ${HOUR_MICROS} AS hour, count(*) AS attempts,
                sum(CASE WHEN a.success THEN 1 ELSE 0 END) AS succeeded
           FROM delivery_attempts a JOIN webhooks w ON w.id = a.webhook_id
          WHERE w.account_id = ? AND a.requested_at >= ? GROUP BY a.requested_at / ${HOUR_MICROS}`,
        [accountId, since],
      );
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[Math.floor(SCAN_RUNS / 2)]!;
  } finally {
    await db.close();
  }
}

export async function statisticsScenario(options: StatisticsOptions): Promise<StatisticsFigures> {
  const service = await options.start();
  try {
    const client = createWebhooksClient({ hostUrl: service.baseUrl, accountId: options.accountId, token: TOKEN });
    const ids: string[] = [];
    for (let i = 0; i < options.webhooks; i += 1) {
      // No event is posted: nothing is ever sent to these.
      const hook = await client.create({
        name: `statistics ${i}`,
        client_url: `http://127.0.0.1:9/statistics/${i}`,
        event_types: ['job.run.errored'],
      });
      ids.push(hook.id);
    }
    const now = Date.now() * 1000;
    const db = inspectDatabase(options.where);
    const seeding = performance.now();
    try {
      await seedLog(db, {
        accountId: options.accountId,
        webhookIds: ids,
        attempts: options.attempts,
        now,
        spanSeconds: WEEK_SECONDS - 2 * 3600,
      });
    } finally {
      await db.close();
    }
    const seededSeconds = (performance.now() - seeding) / 1000;
    const week = await client.accountStatistics('7d');
    const logged = week.totals.attempts_succeeded + week.totals.attempts_failed;
    if (logged !== options.attempts)
      throw new Error(`the statistics count ${logged} attempts, not ${options.attempts}`);

    const origin = new URL(service.baseUrl).origin;
    const api = `${origin}/api/v3/accounts/${options.accountId}/webhooks`;
    const ceiling = `${api}/subscription/${ids[0]}`;
    const headers = { authorization: `Token ${TOKEN}` };
    const load = { service: { headers, connections: CONNECTIONS }, ceiling: { headers, connections: CONNECTIONS } };
    const measure = async (url: string) => {
      const rates = await rateAgainstCeiling(url, ceiling, load, options.seconds);
      return { ...rates, p50: Number(rates.serviceP50Ms.toFixed(1)) };
    };
    const day = await measure(`${api}/statistics?window=24h`);
    const account = await measure(`${api}/statistics?window=7d`);
    const one = await measure(`${api}/subscription/${ids[1]}/statistics?window=7d`);
    const scanMs = await logScanMs(options.where, options.accountId, now - WEEK_SECONDS * 1_000_000);
    const p = options.prefix;
    return {
      [`${p}_attempts`]: options.attempts,
      [`${p}_webhooks`]: options.webhooks,
      [`${p}_seed_s`]: Math.round(seededSeconds),
      [`${p}_account_24h_per_s`]: Number(day.service.toFixed(1)),
      [`${p}_account_24h_p50_ms`]: day.p50,
      [`${p}_account_24h_ratio`]: ratio(day.service, day.ceiling),
      [`${p}_account_7d_per_s`]: Number(account.service.toFixed(1)),
      [`${p}_account_7d_p50_ms`]: account.p50,
      [`${p}_account_7d_ratio`]: ratio(account.service, account.ceiling),
      [`${p}_webhook_7d_per_s`]: Number(one.service.toFixed(1)),
      [`${p}_webhook_7d_p50_ms`]: one.p50,
      [`${p}_webhook_7d_ratio`]: ratio(one.service, one.ceiling),
      [`${p}_ceiling_per_s`]: Math.round((day.ceiling + account.ceiling + one.ceiling) / 3),
      [`${p}_log_scan_7d_ms`]: Math.round(scanMs),
    };
  } finally {
    await service.signal('SIGTERM');
  }
}

export function statisticsLines(figures: StatisticsFigures, prefix: string): string[] {
  const f = (name: string) => figures[`${prefix}_${name}`];
  return [
    `  statistics, ${f('attempts')} attempts, ${f('webhooks')} webhooks (seeded in ${f('seed_s')} s); ceiling GET one webhook ${f('ceiling_per_s')} req/s`,
    `    account, 24 h                      ${f('account_24h_per_s')} req/s, p50 ${f('account_24h_p50_ms')} ms   ${prefix}_account_24h_ratio ${f('account_24h_ratio')}`,
    `    account, 7 days                    ${f('account_7d_per_s')} req/s, p50 ${f('account_7d_p50_ms')} ms   ${prefix}_account_7d_ratio ${f('account_7d_ratio')}`,
    `    one webhook, 7 days                ${f('webhook_7d_per_s')} req/s, p50 ${f('webhook_7d_p50_ms')} ms   ${prefix}_webhook_7d_ratio ${f('webhook_7d_ratio')}`,
    `    the same 7 days counted from the log   ${f('log_scan_7d_ms')} ms a count`,
  ];
}
