// SQLite access to accounts.
import type { Plan } from '@jobhooks/client/contract';
import type { SqliteDatabase } from './database';
import type { AccountRecord } from '../domain/account';
import type { AccountsStore } from './store';

interface AccountRow {
  id: number;
  identifier: string;
  name: string;
  plan: string;
  created_at: number;
}

export function accountFromRow(row: AccountRow): AccountRecord {
  return { id: row.id, identifier: row.identifier, name: row.name, plan: row.plan as Plan, createdAt: row.created_at };
}

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
