// SQLite access to accounts.
import type { SqliteDatabase } from './database';
import { accountFromRow, type AccountRow } from '../rows';
import type { AccountsStore } from '../store';

export function createAccountsStore(db: SqliteDatabase): AccountsStore {
  const insert = db.prepare(
    'INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (@id, @identifier, @name, @plan, @createdAt)',
  );
  const get = db.prepare<[number], AccountRow>('SELECT * FROM accounts WHERE id = ?');
  const list = db.prepare<[], AccountRow>('SELECT * FROM accounts ORDER BY id');
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM accounts');
  return {
    insert: async (account) => {
      insert.run(account);
    },
    get: async (id) => {
      const row = get.get(id);
      return row ? accountFromRow(row) : null;
    },
    list: async () => list.all().map(accountFromRow),
    count: async () => count.get()!.n,
  };
}
