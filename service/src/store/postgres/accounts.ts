// PostgreSQL access to accounts. Rows map to records as in the SQLite store (accountFromRow): bigint ids and
// times come back as numbers (database.ts).
import { accountFromRow } from '../rows';
import type { AccountsStore } from '../store';
import type { PgDatabase } from './database';

interface PgAccountRow {
  id: number;
  identifier: string;
  name: string;
  plan: string;
  created_at: number;
}

const INSERT_ACCOUNT = 'INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES ($1, $2, $3, $4, $5)';
const SELECT_ACCOUNT = 'SELECT id, identifier, name, plan, created_at FROM accounts WHERE id = $1';
const SELECT_ACCOUNTS = 'SELECT id, identifier, name, plan, created_at FROM accounts ORDER BY id';
const COUNT_ACCOUNTS = 'SELECT count(*) AS n FROM accounts';

export function createPgAccountsStore(db: PgDatabase): AccountsStore {
  return {
    insert: async (account) => {
      await db.query(INSERT_ACCOUNT, [account.id, account.identifier, account.name, account.plan, account.createdAt]);
    },
    get: async (id) => {
      const { rows } = await db.query<PgAccountRow>(SELECT_ACCOUNT, [id]);
      return rows[0] ? accountFromRow(rows[0]) : null;
    },
    list: async () => (await db.query<PgAccountRow>(SELECT_ACCOUNTS)).rows.map(accountFromRow),
    count: async () => (await db.query<{ n: number }>(COUNT_ACCOUNTS)).rows[0]!.n,
  };
}
