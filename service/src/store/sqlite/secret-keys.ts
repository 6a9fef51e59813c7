// The rows sealed with the secret key: the webhooks' secrets and the key check. Re-sealing them all under a new
// key is one transaction, so a database never holds secrets under two keys.
import type { SqliteDatabase } from './database';
import type { SecretKeysStore } from '../store';

export function createSecretKeysStore(db: SqliteDatabase): SecretKeysStore {
  const readCheck = db.prepare<[], { sealed: string }>('SELECT sealed FROM secret_key_check WHERE id = 1');
  const writeCheck = db.prepare(
    'INSERT INTO secret_key_check (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed',
  );
  const anySecret = db.prepare<[], { sealed_secret: string }>('SELECT sealed_secret FROM webhooks LIMIT 1');
  const allSecrets = db.prepare<[], { id: string; sealed_secret: string; previous_sealed_secret: string | null }>(
    'SELECT id, sealed_secret, previous_sealed_secret FROM webhooks',
  );
  const writeSecret = db.prepare('UPDATE webhooks SET sealed_secret = ?, previous_sealed_secret = ? WHERE id = ?');

  const reseal = db.transaction((resealOne: (sealed: string) => string, keyCheck: string): number => {
    const rows = allSecrets.all();
    // A rotation's replaced secret too: it signs until its overlap ends.
    for (const row of rows)
      writeSecret.run(
        resealOne(row.sealed_secret),
        row.previous_sealed_secret === null ? null : resealOne(row.previous_sealed_secret),
        row.id,
      );
    writeCheck.run(keyCheck);
    return rows.length;
  });

  return {
    keyCheck: async () => readCheck.get()?.sealed ?? null,
    anySealedSecret: async () => anySecret.get()?.sealed_secret ?? null,
    setKeyCheck: async (sealed) => {
      writeCheck.run(sealed);
    },
    resealAll: async (resealOne, keyCheck) => reseal.immediate(resealOne, keyCheck),
  };
}
