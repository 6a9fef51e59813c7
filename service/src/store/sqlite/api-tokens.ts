// SQLite access to API tokens, which are stored only as hashes.
import { BoundedMap } from '../../core/bounded-map';
import type { SqliteDatabase } from './database';
import type { OtherConnections } from './other-connections';
import { type ApiTokenRow, type PrincipalRow, principalFromRow, type TokenPrincipal, tokenFromRow } from '../rows';
import type { ApiTokensStore } from '../store';

/** Kept principals at most; past that the cache starts over. */
const PRINCIPALS_KEPT = 1000;

export function createApiTokensStore(db: SqliteDatabase, otherConnections: OtherConnections): ApiTokensStore {
  const insert = db.prepare(
    `INSERT INTO api_tokens (id, account_id, name, permission_set, token_hash, created_at)
     VALUES (@id, @accountId, @name, @permissionSet, @tokenHash, @createdAt)`,
  );
  const findActive = db.prepare<[string], PrincipalRow>(
    `SELECT t.id, t.account_id, t.name, t.permission_set, t.created_at, t.revoked_at,
            a.identifier AS a_identifier, a.name AS a_name, a.plan AS a_plan, a.created_at AS a_created_at
       FROM api_tokens t JOIN accounts a ON a.id = t.account_id
      WHERE t.token_hash = ? AND t.revoked_at IS NULL`,
  );
  const listForAccount = db.prepare<[number], ApiTokenRow>(
    'SELECT id, account_id, name, permission_set, created_at, revoked_at FROM api_tokens WHERE account_id = ? ORDER BY created_at, id',
  );
  const revoke = db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');

  // Every API request authenticates, and its token and account rarely change, so found principals are kept.
  // They can only stop being valid by a revocation: this store's own revoke clears them at once, and one made
  // by another connection (the `jobhooks token revoke` command, another process) is seen by the check of other
  // connections' commits on every lookup, at most 1 ms late (other-connections.ts), and that clears them too.
  // (Accounts are never updated or deleted.)
  const otherConnectionsCommitted = otherConnections.newCheck();
  const principals = new BoundedMap<string, TokenPrincipal>(PRINCIPALS_KEPT);
  function principalsStillValid(): Map<string, TokenPrincipal> {
    if (otherConnectionsCommitted()) principals.clear();
    return principals;
  }

  return {
    insert: async (token, tokenHash) => {
      insert.run({ ...token, tokenHash });
    },
    findActiveByHash: async (tokenHash) => {
      const kept = principalsStillValid();
      let found = kept.get(tokenHash);
      if (found === undefined) {
        const row = findActive.get(tokenHash);
        // Only tokens that exist are kept: a flood of wrong tokens cannot fill the memory or push out real ones.
        if (!row) return null;
        found = principalFromRow(row);
        kept.set(tokenHash, found);
      }
      return found;
    },
    listForAccount: async (accountId) => listForAccount.all(accountId).map(tokenFromRow),
    revoke: async (id, revokedAt) => {
      principals.clear();
      return revoke.run(revokedAt, id).changes === 1;
    },
  };
}
