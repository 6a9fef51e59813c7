// A webhook's deletion on PostgreSQL against a log row written at the same moment: the log has no foreign key to
// its webhook (each logged attempt would look the webhook up again), so the writer locks the webhook's row and the
// deletion, which deletes the log after the row, waits for it.
import pg from 'pg';
import type { AttemptLogEntry } from '../../../service/src/domain/attempt';
import { openPool, type PgDatabase } from '../../../service/src/store/postgres/database';
import { appendAttempt } from '../../../service/src/store/postgres/delivery-log';
import { migratePostgres } from '../../../service/src/store/postgres/migrate';
import { createPgWebhooksStore } from '../../../service/src/store/postgres/webhooks';
import { createTestDatabase, useSuiteCluster } from '../../support/postgres';
import { waitFor } from '../../support/wait';
import { T0 } from '../contract/fixtures';

useSuiteCluster();

let url: string;
let db: PgDatabase;
beforeAll(async () => {
  url = await createTestDatabase();
  db = openPool({ url, poolSize: 5 }, () => undefined);
  await migratePostgres(db);
  await db.query(
    `INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (1, 'act_1', 'One', 'enterprise', 0)`,
  );
  await db.query(
    `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active, sealed_secret,
                           created_at, updated_at)
     VALUES ('wsu_gone', 1, 'gone', '', 'http://127.0.0.1:9/', '["job.run.completed"]', '[]', true, 'sealed', 0, 0)`,
  );
});
afterAll(() => db.close());

const testSend: AttemptLogEntry = {
  deliveryId: null,
  webhookId: 'wsu_gone',
  eventId: 'wev_test',
  eventType: 'job.run.completed',
  attempt: 1,
  requestedAt: T0,
  durationMs: 12,
  statusCode: '200',
  error: null,
  success: true,
  responseExcerpt: 'ok',
  responseHeaders: {},
  isTest: true,
};

const logRows = async () =>
  Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM delivery_attempts`)).rows[0]!.n);

test('a deletion waits for a log row being written to its webhook, then deletes it too', async () => {
  const writer = new pg.Client({ connectionString: url });
  await writer.connect();
  try {
    await writer.query('BEGIN');
    expect(await appendAttempt(writer, testSend)).toEqual(expect.any(Number));
    let deleted: boolean | null = null;
    const deleting = createPgWebhooksStore(db)
      .delete(1, 'wsu_gone')
      .then((result) => (deleted = result));
    // The deletion is queued behind the writer's lock on the webhook's row.
    await waitFor(
      async () =>
        (
          await db.query(
            `SELECT 1 FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM webhooks%'`,
          )
        ).rows.length === 1,
      'the deletion to wait for the lock',
    );
    expect(deleted).toBeNull();
    await writer.query('COMMIT');
    expect(await deleting).toBe(true);
    expect(await logRows()).toBe(0);
  } finally {
    await writer.end();
  }
});
