// `jobhooks backup --to FILE`: a consistent copy of the live database through SQLite's online backup, safe
// while the service writes (a plain file copy would miss whatever the WAL holds since the last checkpoint).
import { chmodSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigurationError } from '../core/errors';

/** Copy every page in one step: one read snapshot, so writes during the backup cannot make it restart or tear. */
const ALL_PAGES_AT_ONCE = 2 ** 31 - 1;

export async function backupDatabase(databasePath: string, target: string): Promise<{ target: string; pages: number }> {
  const to = resolve(target);
  if (existsSync(to)) throw new ConfigurationError(`${to} exists already: give --to a new file (a backup never overwrites one).`);
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(to, { progress: () => ALL_PAGES_AT_ONCE });
    // Sealed secrets, token hashes and every payload: the owner's only, as the database itself.
    chmodSync(to, 0o600);
    return { target: to, pages: totalPages };
  } finally {
    db.close();
  }
}
