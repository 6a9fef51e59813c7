// PostgreSQL access to API tokens, which are stored only as hashes, with the principals found by hash kept in
// memory: every API request authenticates, and a token and its account rarely change.
import { type ApiTokenRow, type PrincipalRow, principalFromRow, type TokenPrincipal, tokenFromRow } from '../rows';
import type { ApiTokensStore } from '../store';
import type { PgDatabase } from './database';
import { NotifiedCache, type Notifications } from './notifications';

const INSERT_TOKEN = `
  INSERT INTO api_tokens (id, account_id, name, permission_set, token_hash, created_at)
  VALUES ($1, $2, $3, $4, $5, $6)`;
const SELECT_ACTIVE_PRINCIPAL = `
  SELECT t.id, t.account_id, t.name, t.permission_set, t.created_at, t.revoked_at,
         a.identifier AS a_identifier, a.name AS a_name, a.plan AS a_plan, a.created_at AS a_created_at
    FROM api_tokens t JOIN accounts a ON a.id = t.account_id
   WHERE t.token_hash = $1 AND t.revoked_at IS NULL`;
const SELECT_ACCOUNT_TOKENS = `
  SELECT id, account_id, name, permission_set, created_at, revoked_at
    FROM api_tokens WHERE account_id = $1 ORDER BY created_at, id`;
const REVOKE_TOKEN = 'UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL';

/** Kept principals at most; past that the cache starts over. */
const PRINCIPALS_KEPT = 1000;

/** Invalidations that may touch a principal: any token, any account, or everything (a reconnect). */
const CLEARS_PRINCIPALS = new Set(['t:*', 'a:*', '*']);

export function createPgApiTokensStore(db: PgDatabase, notifications: Notifications): ApiTokensStore {
  // A principal stops being valid only by a revocation (or a change of its account): this store's own revoke
  // clears them once it committed, another instance's (or the CLI's) by the notification its trigger sends.
  const principals = new NotifiedCache<string, TokenPrincipal>(notifications, PRINCIPALS_KEPT);
  notifications.onInvalidate((payload) => {
    if (CLEARS_PRINCIPALS.has(payload)) principals.clear();
  });

  return {
    insert: async (token, tokenHash) => {
      await db.query(INSERT_TOKEN, [
        token.id,
        token.accountId,
        token.name,
        token.permissionSet,
        tokenHash,
        token.createdAt,
      ]);
    },
    // Only tokens that exist are kept: a flood of wrong tokens cannot fill the memory or push out real ones.
    findActiveByHash: (tokenHash) =>
      principals.get(tokenHash, async () => {
        const { rows } = await db.query<PrincipalRow>(SELECT_ACTIVE_PRINCIPAL, [tokenHash]);
        return rows[0] ? principalFromRow(rows[0]) : null;
      }),
    listForAccount: async (accountId) =>
      (await db.query<ApiTokenRow>(SELECT_ACCOUNT_TOKENS, [accountId])).rows.map(tokenFromRow),
    revoke: async (id, revokedAt) => {
      try {
        return (await db.query(REVOKE_TOKEN, [revokedAt, id])).rowCount === 1;
      } finally {
        // After the commit (or a failure that may hide one), so no lookup that read the token before can keep it.
        principals.clear();
      }
    },
  };
}
