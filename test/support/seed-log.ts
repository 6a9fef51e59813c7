// Fills a service's database with a delivery log of known outcomes, fast, for the tests and the benchmark that need
// hundreds of thousands of attempts (the real pipeline would take minutes to log them): one event, one delivery and
// one attempt per row number i, spread over the webhooks given and the hours before `now`, every seventh one failed
// for good; then the hourly rollup of exactly those rows, as the service would have written it. SQL in the dialect
// both backends share (db-inspect.ts), so it runs on SQLite and PostgreSQL alike.
import { DURATION_BOUNDS_MS, HOUR_MICROS } from '../../service/src/domain/delivery-stats';
import { ADD_TO_HOUR, COUNT_COLUMNS } from '../../service/src/store/stats-rows';
import type { DatabaseInspector } from './db-inspect';

export interface SeedOptions {
  accountId: number;
  webhookIds: readonly string[];
  attempts: number;
  /** Microseconds: attempt i is requested (i mod spanSeconds) seconds before it. */
  now: number;
  spanSeconds: number;
}

/** The rows of one statement: a recursive count that both backends run, in batches so no statement is huge. */
const BATCH = 100_000;

/** Attempt i fails when i is a multiple of this; its duration is (i * 37) mod 900 + 1 ms. */
export const SEED_FAIL_EVERY = 7;

export async function seedLog(db: DatabaseInspector, options: SeedOptions): Promise<void> {
  const { webhookIds, attempts } = options;
  const hooks = webhookIds.map((_, k) => `(${k}, ?)`).join(', ');
  for (let from = 1; from <= attempts; from += BATCH) {
    const to = Math.min(attempts, from + BATCH - 1);
    // Each row's number, webhook and time, in a common table expression every statement starts with.
    const rows = `WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to}),
      hooks(k, id) AS (VALUES ${hooks}),
      seeded AS (SELECT i, hooks.id AS webhook_id,
                        CAST(? AS BIGINT) - CAST(i % ? AS BIGINT) * 1000000 AS t
                   FROM n JOIN hooks ON hooks.k = i % ${webhookIds.length})`;
    const params = [...webhookIds, options.now, options.spanSeconds];
    // On PostgreSQL an event counts the deliveries that name it: here, one each.
    const counted =
      db.backend === 'postgres' ? { column: ', deliveries_left', value: ', 1' } : { column: '', value: '' };
    await db.run(
      `${rows} INSERT INTO events (id, account_id, event_type, run_id, created_at${counted.column})
       SELECT 'wev_seed' || i, ?, 'job.run.completed', 'seed-' || i, t${counted.value} FROM seeded`,
      [...params, options.accountId],
    );
    await db.run(
      `${rows} INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, created_at, updated_at)
       SELECT 'wdl_seed' || i, 'wev_seed' || i, webhook_id,
              CASE WHEN i % ${SEED_FAIL_EVERY} = 0 THEN 'failed' ELSE 'succeeded' END, ?, 1, t, t FROM seeded`,
      [...params, Buffer.from('{"seeded":true}')],
    );
    await db.run(
      `${rows} INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, requested_at,
                                      duration_ms, status_code, error, success, response_excerpt, is_test)
       SELECT 'wdl_seed' || i, webhook_id, 'wev_seed' || i, 'job.run.completed', 1, t, (i * 37) % 900 + 1,
              CASE WHEN i % ${SEED_FAIL_EVERY} = 0 THEN '500' ELSE '200' END,
              CASE WHEN i % ${SEED_FAIL_EVERY} = 0 THEN 'The endpoint answered HTTP 500' END,
              i % ${SEED_FAIL_EVERY} <> 0, '', 1 = 0
         FROM seeded`,
      params,
    );
  }
  await db.run(rollupOfSeed(), []);
}

/** The rollup of the seeded rows: what the service writes with each batch of results, grouped in one statement. */
function rollupOfSeed(): string {
  const bucket = DURATION_BOUNDS_MS.map((bound, i) => {
    const below = i === 0 ? null : DURATION_BOUNDS_MS[i - 1]!;
    const last = i === DURATION_BOUNDS_MS.length - 1;
    const test = last
      ? `a.duration_ms > ${below}`
      : below === null
        ? `a.duration_ms <= ${bound}`
        : `a.duration_ms > ${below} AND a.duration_ms <= ${bound}`;
    return `sum(CASE WHEN ${test} THEN 1 ELSE 0 END)`;
  });
  return `INSERT INTO delivery_stats (webhook_id, account_id, hour, ${COUNT_COLUMNS.join(', ')})
    SELECT a.webhook_id, w.account_id, (a.requested_at / ${HOUR_MICROS}) * ${HOUR_MICROS},
           sum(CASE WHEN a.success THEN 1 ELSE 0 END), sum(CASE WHEN a.success THEN 0 ELSE 1 END),
           sum(CASE WHEN d.state = 'succeeded' THEN 1 ELSE 0 END), sum(CASE WHEN d.state = 'failed' THEN 1 ELSE 0 END),
           ${bucket.join(', ')}
      FROM delivery_attempts a JOIN webhooks w ON w.id = a.webhook_id JOIN deliveries d ON d.id = a.delivery_id
     WHERE a.delivery_id LIKE 'wdl_seed%'
     GROUP BY a.webhook_id, w.account_id, (a.requested_at / ${HOUR_MICROS}) * ${HOUR_MICROS}
    ${ADD_TO_HOUR}`;
}
