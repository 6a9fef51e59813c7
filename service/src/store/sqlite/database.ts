// Opens the SQLite file with the pragmas the service relies on and brings its schema up to date.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigurationError } from '../../core/errors';
import type { Migration } from '../rows';
import { MIGRATIONS } from './migrations';
import { makeFolder } from '../../core/make-folder';

export type SqliteDatabase = Database.Database;

/** How long a writer waits for another process's lock (the CLI writes while the service runs). */
const BUSY_TIMEOUT_MS = 5000;
const PAGE_CACHE_KIB = 32 * 1024;

/**
 * The database holds sealed secrets, token hashes and every payload: only its owner may read it. SQLite gives
 * the -wal and -shm files the database file's mode, so the file is made (or brought back to) 0600 first.
 */
function restrictToOwner(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
}

/**
 * When a commit reaches the disk. In WAL mode, `full` syncs the WAL at every commit: an acknowledged write
 * survives a power loss. `normal` syncs only at checkpoints: it survives a crash of the process, but a power
 * loss (or a crash of the OS) may take back the last commits. Group commit makes `full` pay one sync per
 * batch of writes, not per request; docs/performance.md#durability-full-and-normal gives what `npm run bench`
 * measured for each.
 */
export type Durability = 'full' | 'normal';

export function openDatabase(
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
  durability: Durability = 'full',
): SqliteDatabase {
  makeFolder(dirname(path));
  if (path !== ':memory:') restrictToOwner(path);
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
    // 32 MiB of page cache (the default is 2 MiB): the hot index pages stay in memory while the peak RSS with a
    // million-delivery backlog stays moderate (npm run bench measures it: rss_mb).
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    // Sub-journals of nested transactions and temporary sort tables stay in memory instead of temp files.
    db.pragma('temp_store = MEMORY');
    migrate(db, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function schemaVersion(db: SqliteDatabase): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies each migration newer than the file's user_version, each in its own transaction. */
export function migrate(db: SqliteDatabase, migrations: readonly Migration[]): void {
  const current = schemaVersion(db);
  const newest = migrations.at(-1)?.version ?? 0;
  if (current > newest) {
    throw new ConfigurationError(
      `The database schema is version ${current}, newer than this build knows (${newest}). Upgrade jobhooks.`,
    );
  }
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

/** SQLite's `synchronous` levels this service sets: NORMAL (1) and FULL (2). */
const SYNCHRONOUS_NORMAL = 1;

/**
 * Runs `commit` (a transaction that commits) without waiting for the disk, whatever the durability: in WAL mode
 * at NORMAL the commit survives a crash of the process, and only a power loss or a crash of the OS may take it
 * back. For writes whose loss only a restart of the machine can cause, and that such a restart makes harmless.
 * The connection's own level comes back afterwards, and a later synced commit syncs this one's pages too.
 */
export function commitWithoutSync<T>(db: SqliteDatabase, commit: () => T): T {
  const level = db.pragma('synchronous', { simple: true }) as number;
  if (level <= SYNCHRONOUS_NORMAL) return commit();
  db.pragma(`synchronous = ${SYNCHRONOUS_NORMAL}`);
  try {
    return commit();
  } finally {
    db.pragma(`synchronous = ${level}`);
  }
}
