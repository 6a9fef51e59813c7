// Opens the store the configuration names: the SQLite file, or PostgreSQL when a database URL is given.
import { ConfigurationError } from '../core/errors';
import type { Durability } from './database';
import { createSqliteStore } from './sqlite-store';
import type { Store } from './store';

export interface StoreSettings {
  sqlitePath: string;
  durability: Durability;
  postgres: { url: string; poolSize: number } | null;
  /** A failure away from any request (PostgreSQL: a lost idle or LISTEN connection); logged by the caller. */
  onBackgroundError: (error: unknown, what: string) => void;
}

export async function openStore(settings: StoreSettings): Promise<Store> {
  // The PostgreSQL store is being built (its schema, caches, locks and rate windows are in store/postgres/; the
  // event, delivery and log parts are not yet): a start on it is refused rather than half-working.
  if (settings.postgres !== null) {
    throw new ConfigurationError(
      'JOBHOOKS_DATABASE_URL is set, but this build cannot run on PostgreSQL yet: unset it to use the SQLite database (JOBHOOKS_DB).',
    );
  }
  return createSqliteStore(settings.sqlitePath, undefined, settings.durability);
}
