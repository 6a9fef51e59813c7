// SQLite access to API tokens, which are stored only as hashes.
import type { PermissionSet } from '../contract';
import { accountFromRow } from './accounts';
import type { SqliteDatabase } from './database';
import type { ApiTokenRecord, ApiTokensStore } from './store';

interface ApiTokenRow {
  id: string;
  account_id: number;
  name: string;
  permission_set: string;
  created_at: number;
  revoked_at: number | null;
}

function tokenFromRow(row: ApiTokenRow): ApiTokenRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    permissionSet: row.permission_set as PermissionSet,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

export function createApiTokensStore(db: SqliteDatabase): ApiTokensStore {
  const insert = db.prepare(
    `INSERT INTO api_tokens (id, account_id, name, permission_set, token_hash, created_at)
     VALUES (@id, @accountId, @name, @permissionSet, @tokenHash, @createdAt)`,
  );
  const findActive = db.prepare<[string], ApiTokenRow & { a_identifier: string; a_name: string; a_plan: string; a_created_at: number }>(
    `SELECT t.id, t.account_id, t.name, t.permission_set, t.created_at, t.revoked_at,
            a.identifier AS a_identifier, a.name AS a_name, a.plan AS a_plan, a.created_at AS a_created_at
       FROM api_tokens t JOIN accounts a ON a.id = t.account_id
      WHERE t.token_hash = ? AND t.revoked_at IS NULL`,
  );
  const listForAccount = db.prepare<[number], ApiTokenRow>(
    'SELECT id, account_id, name, permission_set, created_at, revoked_at FROM api_tokens WHERE account_id = ? ORDER BY created_at, id',
  );
  const revoke = db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  return {
    insert: async (token, tokenHash) => {
      insert.run({ ...token, tokenHash });
    },
    findActiveByHash: async (tokenHash) => {
      const row = findActive.get(tokenHash);
      if (!row) return null;
      return {
        token: tokenFromRow(row),
        account: accountFromRow({
          id: row.account_id,
          identifier: row.a_identifier,
          name: row.a_name,
          plan: row.a_plan,
          created_at: row.a_created_at,
        }),
      };
    },
    listForAccount: async (accountId) => listForAccount.all(accountId).map(tokenFromRow),
    revoke: async (id, revokedAt) => revoke.run(revokedAt, id).changes === 1,
  };
}
