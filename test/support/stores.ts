// A store of either backend for tests that program against the Store interface: a SQLite file in a temporary
// folder, or a new database on the suite's PostgreSQL cluster (test/support/postgres.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '../../service/src/store/sqlite/sqlite-store';
import type { Store } from '../../service/src/store/store';
import { createTestDatabase, type TestBackend } from './postgres';

export interface TestStore {
  store: Store;
  /** Failures away from any call (PostgreSQL: a lost LISTEN or idle connection), for tests that cause them. */
  backgroundErrors: string[];
  /** The database: a file path (sqlite) or a URL (postgres). */
  location: string;
  close(): Promise<void>;
}

export async function openTestStore(backend: TestBackend, location?: string): Promise<TestStore> {
  if (backend === 'sqlite') {
    const dir = location === undefined ? mkdtempSync(join(tmpdir(), 'jobhooks-store-')) : null;
    const path = location ?? join(dir!, 'jobhooks.db');
    const store = createSqliteStore(path);
    return {
      store,
      backgroundErrors: [],
      location: path,
      close: async () => {
        await store.close();
        if (dir !== null) rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = location ?? (await createTestDatabase());
  const backgroundErrors: string[] = [];
  // Loaded only here, so the sqlite project's store tests do not load the PostgreSQL store's modules.
  type PostgresStoreModule = typeof import('../../service/src/store/postgres/postgres-store');
  const { createPostgresStore } = require('../../service/src/store/postgres/postgres-store') as PostgresStoreModule;
  const store = await createPostgresStore({
    url,
    poolSize: 5,
    onBackgroundError: (error, what) => backgroundErrors.push(`${what}: ${String(error)}`),
  });
  return { store, backgroundErrors, location: url, close: () => store.close() };
}
