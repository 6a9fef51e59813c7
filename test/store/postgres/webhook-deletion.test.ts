// A webhook's deletion on PostgreSQL against log rows written to it at the same moment. The log has no foreign key
// to its webhook (each logged attempt would look the webhook up again): its writers lock the webhook's row, and
// the deletion waits for them, then its trigger deletes the webhook's log, whoever deleted the webhook.
import pg from 'pg';
import { openPool, type PgDatabase } from '../../../service/src/store/postgres/database';
import { LOCK_DISPATCH_STATES } from '../../../service/src/store/postgres/deliveries';
import { appendAttempt, appendAttempts } from '../../../service/src/store/postgres/delivery-log';
import { migratePostgres } from '../../../service/src/store/postgres/migrate';
import { createPgWebhooksStore } from '../../../service/src/store/postgres/webhooks';
import { createTestDatabase, useSuiteCluster } from '../../support/postgres';
import { waitFor } from '../../support/wait';
import { testSendEntry } from '../contract/fixtures';

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
  await addWebhook('wsu_gone');
});
afterAll(() => db.close());

const testSend = testSendEntry({ webhookId: 'wsu_gone' });

const logRows = async (webhookId: string) =>
  Number(
    (await db.query<{ n: string }>(`SELECT count(*) AS n FROM delivery_attempts WHERE webhook_id = $1`, [webhookId]))
      .rows[0]!.n,
  );

async function addWebhook(id: string, accountId = 1): Promise<void> {
  await db.query(
    `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active, sealed_secret,
                           created_at, updated_at)
     VALUES ($1, $2, $1, '', 'http://127.0.0.1:9/', '["job.run.completed"]', '[]', true, 'sealed', 0, 0)`,
    [id, accountId],
  );
}

const deletionWaits = () =>
  waitFor(
    async () =>
      (
        await db.query(
          `SELECT 1 FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM webhooks%'`,
        )
      ).rows.length === 1,
    'the deletion to wait for the lock',
  );

/** Runs `work` in a transaction of its own connection, and `meanwhile` while that transaction is still open. */
async function whileOpen(work: (client: pg.Client) => Promise<void>, meanwhile: () => Promise<void>): Promise<void> {
  const writer = new pg.Client({ connectionString: url });
  await writer.connect();
  try {
    await writer.query('BEGIN');
    await work(writer);
    await meanwhile();
    await writer.query('COMMIT');
  } finally {
    await writer.end();
  }
}

test('a deletion waits for a test send being logged to its webhook, then deletes that row too', async () => {
  const deletion: { done?: Promise<boolean> } = {};
  let deleted: boolean | null = null;
  await whileOpen(
    async (writer) => expect(await appendAttempt(writer, testSend)).toEqual(expect.any(Number)),
    async () => {
      deletion.done = createPgWebhooksStore(db)
        .delete(1, 'wsu_gone')
        .then((result) => (deleted = result));
      // Queued behind the writer's lock on the webhook's row.
      await deletionWaits();
      expect(deleted).toBeNull();
    },
  );
  expect(await deletion.done).toBe(true);
  expect(await logRows('wsu_gone')).toBe(0);
});

test("a deletion waits for a batch of results that holds its webhook, then deletes the batch's log rows too", async () => {
  await addWebhook('wsu_results');
  const deletion: { done?: Promise<boolean> } = {};
  await whileOpen(
    async (writer) => {
      // As a batch of results does: its webhooks locked, then their log rows written.
      await writer.query(LOCK_DISPATCH_STATES, [['wsu_results']]);
      await appendAttempts(writer, [
        { ...testSend, webhookId: 'wsu_results', isTest: false },
        { ...testSend, webhookId: 'wsu_results', attempt: 2, isTest: false },
      ]);
    },
    async () => {
      deletion.done = createPgWebhooksStore(db).delete(1, 'wsu_results');
      await deletionWaits();
    },
  );
  expect(await deletion.done).toBe(true);
  expect(await logRows('wsu_results')).toBe(0);
});

test("an account's deletion, or a webhook deleted by hand, takes the webhooks' log with it", async () => {
  await db.query(
    `INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (2, 'act_2', 'Two', 'enterprise', 0)`,
  );
  await addWebhook('wsu_of_two', 2);
  await addWebhook('wsu_by_hand');
  for (const webhookId of ['wsu_of_two', 'wsu_by_hand']) await appendAttempts(db.pool, [{ ...testSend, webhookId }]);
  expect([await logRows('wsu_of_two'), await logRows('wsu_by_hand')]).toEqual([1, 1]);
  await db.query('DELETE FROM accounts WHERE id = 2');
  await db.query(`DELETE FROM webhooks WHERE id = 'wsu_by_hand'`);
  expect([await logRows('wsu_of_two'), await logRows('wsu_by_hand')]).toEqual([0, 0]);
});

test("the store's statements run in READ COMMITTED whatever the database's default", async () => {
  const strict = await createTestDatabase();
  const admin = openPool({ url: strict, poolSize: 1 }, () => undefined);
  await admin.query(
    `ALTER DATABASE ${new URL(strict).pathname.slice(1)} SET default_transaction_isolation = 'serializable'`,
  );
  await admin.close();
  const store = openPool({ url: strict, poolSize: 2 }, () => undefined);
  try {
    const level = async (query: (text: string) => Promise<pg.QueryResult<{ transaction_isolation: string }>>) =>
      (await query('SHOW transaction_isolation')).rows[0]!.transaction_isolation;
    // At once, so that each opens a connection of its own.
    const levels = await Promise.all([
      store.transaction((client) => level((text) => client.query(text))),
      level((text) => store.query(text)),
    ]);
    expect(levels).toEqual(['read committed', 'read committed']);
  } finally {
    await store.close();
  }
});
