// Rate windows in PostgreSQL, shared by every instance: each account's window per budget here, each client
// address's window of failed sign-ins in sign-in-windows.ts. An update reads and writes one window in a
// transaction that holds its row, so concurrent requests on any instances are counted one after the other.
import type pg from 'pg';
import { createSerialBatches } from './serial-batches';
import type { RateWindowsStore, SharedRateWindow } from '../store';
import { settleEach, type Waiting } from '../write-apart';
import { type PgDatabase, prepared, type PreparedStatement } from './database';

/** How one table of windows is read and written; the window's key is the leading parameters of each statement. */
export interface WindowTable {
  /** The window's row, FOR UPDATE: window_start_ms, count, blocked_until_ms. */
  selectLocked: PreparedStatement;
  /** An empty row (zero window), ON CONFLICT DO NOTHING. */
  insertPlaceholder: PreparedStatement;
  /** Sets window_start_ms, count and blocked_until_ms from the three parameters after the key. */
  write: PreparedStatement;
  /** Names the window in an error. */
  describe(key: readonly unknown[]): string;
  /**
   * Whether the window's commit waits for the disk. A window is locked until its commit, and every request it
   * counts waits for it; a window whose count may be lost in a crash of PostgreSQL says false.
   */
  waitForDisk: boolean;
}

interface PgRateWindowRow {
  window_start_ms: number;
  count: number;
  blocked_until_ms: number | null;
}

/**
 * How often a missing row is inserted and looked for again before giving up: it vanishes between the insert and
 * the read only when deleted meanwhile (its account deleted, or its sign-in window ended and swept).
 */
const ATTEMPTS = 3;

/** The window of `key`, its row held until the transaction ends; undefined when there was none (its placeholder row is then held). */
async function lockedWindow(
  client: pg.PoolClient,
  table: WindowTable,
  key: readonly unknown[],
): Promise<SharedRateWindow | undefined> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const { rows } = await client.query<PgRateWindowRow>(table.selectLocked, [...key]);
    const row = rows[0];
    if (row) return { windowStartMs: row.window_start_ms, count: row.count, blockedUntilMs: row.blocked_until_ms };
    // Inserted: this transaction holds the new row. Not inserted: another one's insert committed meanwhile, so
    // its row is looked for again.
    if ((await client.query(table.insertPlaceholder, [...key])).rowCount === 1) return undefined;
  }
  throw new Error(`${table.describe(key)} could not be held.`);
}

/**
 * Reads the window of `key`, writes the one `decide` returns and runs `alsoInTransaction` with both before the
 * commit; resolves with what `decide` answered.
 */
export function updateWindow<T>(
  db: PgDatabase,
  table: WindowTable,
  key: readonly unknown[],
  decide: (current: SharedRateWindow | undefined) => { window: SharedRateWindow; answer: T },
  alsoInTransaction?: (
    client: pg.PoolClient,
    before: SharedRateWindow | undefined,
    after: SharedRateWindow,
  ) => Promise<void>,
): Promise<T> {
  return db.transaction(
    async (client) => {
      const before = await lockedWindow(client, table, key);
      const { window, answer } = decide(before);
      await client.query(table.write, [...key, window.windowStartMs, window.count, window.blockedUntilMs]);
      await alsoInTransaction?.(client, before, window);
      return answer;
    },
    { waitForDisk: table.waitForDisk },
  );
}

// A first update inserts an empty row and holds it, so a concurrent first update waits for it instead of
// inserting its own; the placeholder is overwritten by the write in the same transaction.
const ACCOUNT_WINDOWS: WindowTable = {
  selectLocked: prepared(`
    SELECT window_start_ms, count, blocked_until_ms FROM rate_limit_windows
     WHERE account_id = $1 AND budget = $2 FOR UPDATE`),
  insertPlaceholder: prepared(`
    INSERT INTO rate_limit_windows (account_id, budget, window_start_ms, count, blocked_until_ms)
    VALUES ($1, $2, 0, 0, NULL) ON CONFLICT (account_id, budget) DO NOTHING`),
  write: prepared(`
    UPDATE rate_limit_windows SET window_start_ms = $3, count = $4, blocked_until_ms = $5
     WHERE account_id = $1 AND budget = $2`),
  describe: ([accountId, budget]) => `The rate window ${String(budget)} of account ${String(accountId)}`,
  // Every request of the account waits for the window's commit: one that waited for the disk would make each
  // request wait for the ones before it to reach the disk. A count lost in a crash of PostgreSQL lets a few
  // requests more through.
  waitForDisk: false,
};

type Decide = Parameters<RateWindowsStore['update']>[2];

interface WaitingUpdate extends Waiting<unknown> {
  accountId: number;
  budget: string;
  decide: Decide;
}

/**
 * The updates of one window asked for while its previous ones were written (the requests of a busy account) share
 * one transaction: each `decide` sees the window the one before it wrote, and the row is written once. A request
 * costs the database a share of one transaction, not one of its own waiting on the others' row lock. Each window
 * has its queue, so an account whose row is slow to get does not hold up the others.
 */
export function createPgRateWindowsStore(db: PgDatabase): RateWindowsStore {
  async function updateTogether(group: WaitingUpdate[]): Promise<void> {
    const { accountId, budget } = group[0]!;
    try {
      const answers = await updateWindow(db, ACCOUNT_WINDOWS, [accountId, budget], (current) => {
        const each: unknown[] = [];
        let window = current;
        for (const waiting of group) {
          const decided = waiting.decide(window);
          each.push(decided.answer);
          window = decided.window;
        }
        return { window: window!, answer: each };
      });
      settleEach(
        group,
        answers.map((value) => ({ ok: true as const, value })),
      );
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
    }
  }

  // One queue per window, kept: there are as many as accounts times budgets.
  const queues = new Map<string, (item: WaitingUpdate) => void>();
  const enqueue = (item: WaitingUpdate) => {
    const key = `${item.accountId}/${item.budget}`;
    let queue = queues.get(key);
    if (queue === undefined) queues.set(key, (queue = createSerialBatches(updateTogether)));
    queue(item);
  };

  return {
    update: <T>(
      accountId: number,
      budget: string,
      decide: (current: SharedRateWindow | undefined) => { window: SharedRateWindow; answer: T },
    ) =>
      new Promise<T>((resolve, reject) =>
        enqueue({ accountId, budget, decide, resolve: resolve as (value: unknown) => void, reject }),
      ),
  };
}
