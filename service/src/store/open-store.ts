// Opens the store the configuration names: PostgreSQL when a database URL is given, the SQLite file otherwise.
import type { Durability } from './sqlite/database';
import { createPostgresStore } from './postgres/postgres-store';
import { createSqliteStore } from './sqlite/sqlite-store';
import type { Store } from './store';

export interface StoreSettings {
  sqlitePath: string;
  durability: Durability;
  postgres: { url: string; poolSize: number } | null;
  /**
   * A failure away from any request (PostgreSQL: a lost idle or LISTEN connection; SQLite: circuit events whose
   * write failed after their results' commit); logged by the caller.
   */
  onBackgroundError: (error: unknown, what: string) => void;
}

export async function openStore(settings: StoreSettings): Promise<Store> {
  if (settings.postgres === null)
    return createSqliteStore(settings.sqlitePath, undefined, settings.durability, settings.onBackgroundError);
  return createPostgresStore({ ...settings.postgres, onBackgroundError: settings.onBackgroundError });
}
