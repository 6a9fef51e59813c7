// Each account's rate windows in PostgreSQL, shared by every instance: an update reads and writes one window in
// a transaction that holds its row, so concurrent requests on any instances are counted one after the other.
import type pg from 'pg';
import type { RateWindowsStore, SharedRateWindow } from '../store';
import type { PgDatabase } from './database';

interface PgRateWindowRow {
  window_start_ms: number;
  count: number;
  blocked_until_ms: number | null;
}

const SELECT_WINDOW_LOCKED = `
  SELECT window_start_ms, count, blocked_until_ms FROM rate_limit_windows
   WHERE account_id = $1 AND budget = $2 FOR UPDATE`;
// A first update inserts an empty row and holds it, so a concurrent first update waits for it instead of
// inserting its own; the placeholder is overwritten by WRITE_WINDOW in the same transaction.
const INSERT_PLACEHOLDER = `
  INSERT INTO rate_limit_windows (account_id, budget, window_start_ms, count, blocked_until_ms)
  VALUES ($1, $2, 0, 0, NULL) ON CONFLICT (account_id, budget) DO NOTHING`;
const WRITE_WINDOW = `
  UPDATE rate_limit_windows SET window_start_ms = $3, count = $4, blocked_until_ms = $5
   WHERE account_id = $1 AND budget = $2`;

/** How often a missing row is inserted and looked for again before giving up (it vanishes only with its account). */
const ATTEMPTS = 3;

/**
 * The window of (accountId, budget), its row held until the transaction ends; undefined when there was none
 * (its placeholder row is then held).
 */
async function lockedWindow(
  client: pg.PoolClient,
  accountId: number,
  budget: string,
): Promise<SharedRateWindow | undefined> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const { rows } = await client.query<PgRateWindowRow>(SELECT_WINDOW_LOCKED, [accountId, budget]);
    const row = rows[0];
    if (row) return { windowStartMs: row.window_start_ms, count: row.count, blockedUntilMs: row.blocked_until_ms };
    // Inserted: this transaction holds the new row. Not inserted: another one's insert committed meanwhile, so
    // its row is looked for again.
    if ((await client.query(INSERT_PLACEHOLDER, [accountId, budget])).rowCount === 1) return undefined;
  }
  throw new Error(`The rate window ${budget} of account ${accountId} could not be held.`);
}

export function createPgRateWindowsStore(db: PgDatabase): RateWindowsStore {
  return {
    update: (accountId, budget, decide) =>
      db.transaction(async (client) => {
        const { window, answer } = decide(await lockedWindow(client, accountId, budget));
        await client.query(WRITE_WINDOW, [
          accountId,
          budget,
          window.windowStartMs,
          window.count,
          window.blockedUntilMs,
        ]);
        return answer;
      }),
  };
}
