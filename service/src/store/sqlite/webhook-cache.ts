// Webhooks read by id are kept in memory until something changes them, so reading one (GET, and the lookup
// before every update, delete, test and delivery-log request) costs a map lookup instead of a SQLite read.
//
// Why it does not serve a stale webhook:
// - this connection's writes: TEMP triggers on `webhooks` (and `accounts`, whose identifier a record
//   carries) call back into this cache for every row an UPDATE or DELETE touches, whatever statement made it,
//   so no write path can forget to invalidate, a future one included;
// - other connections' writes (another process on the same file): every lookup checks PRAGMA data_version (a
//   read of it serves for 1 ms, other-connections.ts), and any commit of theirs empties the cache;
// - uncommitted rows: inside a transaction the cache is neither read nor filled, so a rolled-back change
//   cannot be kept.
import { BoundedMap } from '../../core/bounded-map';
import type { SqliteDatabase } from './database';
import { observeOtherConnections, type OtherConnections } from './other-connections';
import type { StoredWebhook } from '../rows';

/** Kept webhooks at most (one account's maximum); past that the cache starts over. */
const RECORDS_KEPT = 1000;

/** TEMP objects are per connection; a number per cache keeps two caches on one connection apart. */
let cachesMade = 0;

/** Reads one webhook of an account from SQLite; null when there is none. */
export type ReadWebhook = (accountId: number, id: string) => StoredWebhook | null;

export interface WebhookCache {
  /** The webhook `id` of `accountId`, from memory if unchanged since it was last read. */
  get(accountId: number, id: string): StoredWebhook | null;
}

/** Frozen, because one object now answers many callers. */
function frozen(record: StoredWebhook): StoredWebhook {
  return Object.freeze({
    ...record,
    eventTypes: Object.freeze(record.eventTypes),
    jobIds: Object.freeze(record.jobIds),
  }) as StoredWebhook;
}

export function createWebhookCache(
  db: SqliteDatabase,
  read: ReadWebhook,
  otherConnections: OtherConnections = observeOtherConnections(db),
): WebhookCache {
  const records = new BoundedMap<string, StoredWebhook>(RECORDS_KEPT);
  const otherConnectionsCommitted = otherConnections.newCheck();

  const forget = `jobhooks_forget_webhook_${(cachesMade += 1)}`;
  // Called with a webhook id, or with NULL for "all of them".
  db.function(forget, { deterministic: false }, (id: unknown) => {
    if (typeof id === 'string') records.delete(id);
    else records.clear();
    return null;
  });
  db.exec(`
    CREATE TEMP TRIGGER ${forget}_on_update AFTER UPDATE ON main.webhooks BEGIN SELECT ${forget}(OLD.id); END;
    CREATE TEMP TRIGGER ${forget}_on_delete AFTER DELETE ON main.webhooks BEGIN SELECT ${forget}(OLD.id); END;
    CREATE TEMP TRIGGER ${forget}_on_account_update AFTER UPDATE ON main.accounts BEGIN SELECT ${forget}(NULL); END;
    CREATE TEMP TRIGGER ${forget}_on_account_delete AFTER DELETE ON main.accounts BEGIN SELECT ${forget}(NULL); END;
  `);

  return {
    get: (accountId, id) => {
      if (db.inTransaction) return read(accountId, id);
      if (otherConnectionsCommitted()) records.clear();
      let record = records.get(id);
      if (record === undefined) {
        const found = read(accountId, id);
        // Only webhooks that exist are kept: unknown ids cannot fill the memory.
        if (found === null) return null;
        record = frozen(found);
        records.set(id, record);
      }
      // Ids are unique across accounts; another account's webhook is not found, as in SQL.
      return record.accountId === accountId ? record : null;
    },
  };
}
