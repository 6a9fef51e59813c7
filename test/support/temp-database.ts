// A fresh SQLite file for each test, opened as the service opens it, and deleted after the test; and the rows
// the store tests start from.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type SqliteDatabase } from '../../service/src/store/sqlite/database';
import type { Migration } from '../../service/src/store/rows';

export interface TempDatabase {
  /** The open connection of the current test. */
  readonly db: SqliteDatabase;
  /** Its file, for a second connection. */
  readonly path: string;
}

/** Registers the beforeEach/afterEach pair; call it at the top of a test file, before its own hooks. */
export function useTempDatabase(name: string, migrations?: readonly Migration[]): TempDatabase {
  let dir = '';
  const current = {} as { db: SqliteDatabase; path: string };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `jobhooks-${name}-`));
    current.path = join(dir, `${name}.db`);
    current.db = openDatabase(current.path, migrations);
  });
  afterEach(() => {
    if (current.db.open) current.db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return current;
}

/** An account (`act_<id>`) with one webhook, `id`, named `name`: the rows the cache tests read and change. */
export function insertAccountWithWebhook(db: SqliteDatabase, accountId: number, id = 'wsu_a', name = 'before'): void {
  db.prepare("INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (?, ?, 'A', 'enterprise', 0)").run(
    accountId,
    `act_${accountId}`,
  );
  db.prepare(
    `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active, sealed_secret, created_at, updated_at)
     VALUES (?, ?, ?, '', 'http://127.0.0.1:9/', '["job.run.completed"]', '[]', 1, 'v1:x', 0, 0)`,
  ).run(id, accountId, name);
}
