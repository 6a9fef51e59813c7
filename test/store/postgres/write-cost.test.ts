// What the PostgreSQL store makes the database write for each delivery, and how a busy account's rate window is
// written: the parts of the schema and of the writers that decide the WAL and the waits per request.
import pg from 'pg';
import { openPool, type PgDatabase } from '../../../service/src/store/postgres/database';
import { migratePostgres } from '../../../service/src/store/postgres/migrate';
import {
  BY_ID_STATEMENTS,
  CLAIM_LOCK_STATEMENT,
  createPgDeliveriesStore,
} from '../../../service/src/store/postgres/deliveries';
import { createPgEventsStore } from '../../../service/src/store/postgres/events';
import { createPgRateWindowsStore } from '../../../service/src/store/postgres/rate-windows';
import type { SharedRateWindow } from '../../../service/src/store/store';
import { createTestDatabase, useSuiteCluster } from '../../support/postgres';
import { event, TAIL } from '../contract/fixtures';

useSuiteCluster();

let url: string;
let db: PgDatabase;
beforeAll(async () => {
  url = await createTestDatabase();
  // The suite's cluster runs with synchronous_commit off; this database has it on, as an operator's would.
  await withClient(url, (client) =>
    client.query(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET synchronous_commit = on`),
  );
  db = openPool({ url, poolSize: 5 }, () => undefined);
  await migratePostgres(db);
  await db.query(
    `INSERT INTO accounts (id, identifier, name, plan, created_at)
     VALUES (1, 'act_1', 'One', 'enterprise', 0), (2, 'act_2', 'Two', 'enterprise', 0)`,
  );
});
afterAll(() => db.close());

/** A webhook of account 1 that no request reaches. */
async function addWebhook(id: string): Promise<void> {
  await db.query(
    `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active, sealed_secret,
                           created_at, updated_at)
     VALUES ($1, 1, $1, '', 'http://127.0.0.1:9/', '["job.run.completed"]', '[]', true, 'sealed', 0, 0)`,
    [id],
  );
}

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

test('a delivery row is kept in exactly these indexes, each needed by a read or the purge', async () => {
  const { rows } = await db.query<{ indexname: string }>(
    `SELECT indexname FROM pg_indexes WHERE tablename = 'deliveries' ORDER BY indexname`,
  );
  expect(rows.map((r) => r.indexname)).toEqual([
    'deliveries_failed_by_webhook', // recovery of a webhook's failed deliveries
    'deliveries_finished_by_age', // the purge
    'deliveries_pending_by_webhook', // claims, the backlog and the due gauge
    'deliveries_pkey', // by webhook and id: a webhook's deliveries too, deleted with it
  ]);
});

test("a delivery's row checks its webhook's through a foreign key, and no other; a logged attempt's checks none", async () => {
  const { rows } = await db.query<{ child: string; parent: string }>(
    `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint
      WHERE contype = 'f' AND conrelid::regclass::text IN ('deliveries', 'delivery_attempts') ORDER BY 1, 2`,
  );
  // A logged attempt's writers lock its webhook's row themselves (test/store/postgres/webhook-deletion.test.ts).
  expect(rows).toEqual([{ child: 'deliveries', parent: 'webhooks' }]);
});

test("a connection prepares the claim's and the rate window's statements once, and plans the lease at each call", async () => {
  await addWebhook('wsu_prepared');
  await db.query(
    `INSERT INTO events (id, account_id, event_type, run_id, created_at, deliveries_left)
     VALUES ('wev_p', 1, 'job.run.completed', 'p', 0, 3)`,
  );
  await db.query(
    `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
     SELECT 'wdl_p' || g, 'wev_p', 'wsu_prepared', 'pending', '\\x7b'::bytea, 0, 0, 0, 0 FROM generate_series(1, 3) g`,
  );
  // One connection, so the statements this test runs are on the connection it then looks at.
  const one = openPool({ url, poolSize: 1 }, () => undefined);
  try {
    const deliveries = createPgDeliveriesStore(one);
    const windows = createPgRateWindowsStore(one);
    const bump = () => ({ window: { windowStartMs: 1000, count: 1, blockedUntilMs: null }, answer: 1 });
    let leased = 0;
    for (let i = 0; i < 3; i += 1) {
      const request = { owner: 'test', now: 1, leaseUntil: 2, perWebhook: 1, excludeWebhookIds: [] };
      leased += (await deliveries.claimDue(request, (candidates) => candidates)).length;
      await windows.update(1, 'prepared', bump);
    }
    expect(leased).toBe(3);
    const { rows } = await one.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
    const kept = rows.map((r) => r.statement.replace(/\s+/g, ' '));
    expect(kept).toEqual(
      expect.arrayContaining([
        expect.stringContaining('WITH heads AS MATERIALIZED'),
        expect.stringContaining('WITH busy AS MATERIALIZED'),
        expect.stringContaining('FROM rate_limit_windows WHERE account_id = $1 AND budget = $2 FOR UPDATE'),
        expect.stringContaining('UPDATE rate_limit_windows SET'),
      ]),
    );
    // The lease finds its rows by id, planned for the table as it is at each call.
    expect(kept.filter((text) => text.includes('WITH leased'))).toEqual([]);
    // Once each, however often they ran.
    expect(new Set(kept).size).toBe(kept.length);
  } finally {
    await one.close();
  }
});

/** Every index a plan (EXPLAIN's JSON) reads, and every table it scans whole. */
function accessesOf(plan: Record<string, unknown>): string[] {
  const own = [plan['Index Name'], plan['Node Type'] === 'Seq Scan' ? `all of ${String(plan['Relation Name'])}` : null];
  const children = (plan['Plans'] as Array<Record<string, unknown>> | undefined) ?? [];
  return [...own.filter((a): a is string => typeof a === 'string'), ...children.flatMap(accessesOf)];
}

test('a lease, a batch of results and a skip find their rows by key alone, not by reading the backlog', async () => {
  await addWebhook('wsu_by_id');
  // A queue that keeps up: a small backlog among many finished deliveries, the case in which the planner read the
  // whole backlog's index for each statement.
  await db.query(
    `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
     SELECT 'wdl_by_id_' || g, 'wev_by_id', 'wsu_by_id', CASE WHEN g <= 40 THEN 'pending' ELSE 'succeeded' END,
            '\\x7b'::bytea, 0, CASE WHEN g <= 40 THEN g END, g, g
       FROM generate_series(1, 20000) g`,
  );
  await db.query('ANALYZE deliveries');
  const ids = Array.from({ length: 16 }, (_, i) => `wdl_by_id_${i + 1}`);
  const column = <T>(value: T) => ids.map(() => value);
  const parameters: Record<keyof typeof BY_ID_STATEMENTS, unknown[]> = {
    lease: ['test/1', 1_000_000, column('wsu_by_id'), ids, 100],
    moveLeased: [column('wsu_by_id'), ids, column('test/1'), column('succeeded'), column(1), column(null), column(200)],
    skipLeased: [column('wsu_by_id'), ids, 'test/1', 200],
  };
  for (const [name, statement] of Object.entries(BY_ID_STATEMENTS)) {
    const { rows } = await db.query<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }>(
      `EXPLAIN (FORMAT JSON) ${statement}`,
      parameters[name as keyof typeof BY_ID_STATEMENTS],
    );
    // The lease's join to its events and webhooks aside.
    const accesses = accessesOf(rows[0]!['QUERY PLAN'][0]!.Plan).filter((a) => a.includes('deliveries'));
    expect({ name, accesses }).toEqual({ name, accesses: ['deliveries_pkey'] });
  }
  // A deleted webhook's deliveries go with it: the foreign key's cascade deletes them by webhook_id, which leads the
  // primary key (this is the statement PostgreSQL runs for it).
  const { rows } = await db.query<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }>(
    `EXPLAIN (FORMAT JSON) DELETE FROM ONLY deliveries WHERE $1 OPERATOR(pg_catalog.=) webhook_id`,
    ['wsu_deleted'],
  );
  expect(accessesOf(rows[0]!['QUERY PLAN'][0]!.Plan)).toEqual(['deliveries_pkey']);
});

test('a claim looks up the webhooks it leaves out in a hash, in the generic plan its prepared statement keeps', async () => {
  const filters = await withClient(url, async (client) => {
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE lock_due(bigint, text[]) AS ${CLAIM_LOCK_STATEMENT}`);
    // The generic plan is the same whatever the values: these stand for any.
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }>(
      `EXPLAIN (FORMAT JSON) EXECUTE lock_due(1, ARRAY['wsu_left_out_1', 'wsu_left_out_2'])`,
    );
    return filtersOf(rows[0]!['QUERY PLAN'][0]!.Plan);
  });
  // Not `id = ANY($2)`, which compares each webhook with every id left out.
  expect(filters.filter((f) => f.includes('SubPlan'))).toEqual([expect.stringContaining('(NOT (hashed SubPlan 1))')]);
});

/** Every filter of a plan (EXPLAIN's JSON). */
function filtersOf(plan: Record<string, unknown>): string[] {
  const own = typeof plan['Filter'] === 'string' ? [plan['Filter']] : [];
  const children = (plan['Plans'] as Array<Record<string, unknown>> | undefined) ?? [];
  return [...own, ...children.flatMap(filtersOf)];
}

test('a finished delivery cannot hold a lease, as results and skips find theirs by the lease alone', async () => {
  await addWebhook('wsu_leased');
  await db.query(
    `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
     VALUES ('wdl_leased', 'wev_leased', 'wsu_leased', 'pending', '\\x7b'::bytea, 0, 1, 1, 1)`,
  );
  await db.query(`UPDATE deliveries SET lease_owner = 'test/2' WHERE id = 'wdl_leased'`);
  await expect(db.query(`UPDATE deliveries SET state = 'succeeded' WHERE id = 'wdl_leased'`)).rejects.toThrow(
    /deliveries_lease_only_while_pending/,
  );
  await db.query(`UPDATE deliveries SET state = 'succeeded', lease_owner = NULL WHERE id = 'wdl_leased'`);
});

/** `db` with its transactions counted, and the most that ran at once. */
function watched(): { db: PgDatabase; transactions: () => number; mostAtOnce: () => number } {
  let started = 0;
  let running = 0;
  let most = 0;
  const watching: PgDatabase = {
    ...db,
    transaction: (work, options) => {
      started += 1;
      running += 1;
      most = Math.max(most, running);
      return db.transaction(work, options).finally(() => {
        running -= 1;
      });
    },
  };
  return { db: watching, transactions: () => started, mostAtOnce: () => most };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('events taken in while a batch is written wait for it and go together in the next transaction', async () => {
  const watch = watched();
  const events = createPgEventsStore(watch.db);
  const recorded: Array<Promise<unknown>> = [];
  for (let i = 0; i < 40; i += 1) {
    recorded.push(events.record(event(1, `wev_serial_${i}`), () => ({ payloadTail: TAIL, deliveries: [] })));
    await nextTurn();
  }
  expect(await Promise.all(recorded)).toEqual(Array.from({ length: 40 }, () => expect.objectContaining({})));
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE id LIKE 'wev_serial_%'`);
  expect(rows[0]!.n).toBe(40);
  expect(watch.mostAtOnce()).toBe(1);
  expect(watch.transactions()).toBeLessThan(40);
});

describe("an account's rate window", () => {
  const bump = (current: SharedRateWindow | undefined) => {
    const count = (current?.count ?? 0) + 1;
    return { window: { windowStartMs: 1000, count, blockedUntilMs: null }, answer: count };
  };

  test('updates asked for while one is written wait for it and share the next transaction', async () => {
    const watch = watched();
    const windows = createPgRateWindowsStore(watch.db);
    const answers: Array<Promise<number>> = [];
    // Forty requests over forty turns of the event loop, as a busy account's requests arrive.
    for (let i = 0; i < 40; i += 1) {
      answers.push(windows.update(1, 'ingest', bump));
      await nextTurn();
    }
    expect((await Promise.all(answers)).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(watch.mostAtOnce()).toBe(1);
    expect(watch.transactions()).toBeLessThan(40);
  });

  test("one account's window held elsewhere does not hold up another account's", async () => {
    const windows = createPgRateWindowsStore(db);
    await windows.update(1, 'held', bump);
    await withClient(url, async (other) => {
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM rate_limit_windows WHERE account_id = 1 AND budget = 'held' FOR UPDATE`);
      let firstDone = false;
      const first = windows.update(1, 'held', bump).then(() => (firstDone = true));
      await nextTurn();
      await expect(windows.update(2, 'held', bump)).resolves.toBe(1);
      expect(firstDone).toBe(false);
      await other.query('COMMIT');
      await first;
    });
  });

  test("a window's transaction commits without waiting for the disk", async () => {
    let seen: string | undefined;
    const windows = createPgRateWindowsStore({
      ...db,
      transaction: (work, options) =>
        db.transaction(async (tx) => {
          const { rows } = await tx.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
          seen = rows[0]!.synchronous_commit;
          return work(tx);
        }, options),
    });
    await windows.update(1, 'api', bump);
    expect(seen).toBe('off');
    // Any other transaction waits for the disk.
    await db.transaction(async (tx) => {
      seen = (await tx.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;
    });
    expect(seen).toBe('on');
  });
});
