// `jobhooks backup --to FILE`: a consistent copy of the live database through SQLite's online backup, safe
// while the service writes (a plain file copy would miss whatever the WAL holds since the last checkpoint).
import { closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigurationError } from '../core/errors';

/** Copy every page in one step: one read snapshot, so writes during the backup cannot make it restart or tear. */
const ALL_PAGES_AT_ONCE = 2 ** 31 - 1;

export async function backupDatabase(databasePath: string, target: string): Promise<{ target: string; pages: number }> {
  const to = resolve(target);
  // Made empty, 0600 and exclusively before any page is copied: sealed secrets, token hashes and every
  // payload are the owner's only, as in the database itself, and an existing file is never overwritten.
  try {
    closeSync(openSync(to, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new ConfigurationError(`${to} exists already: give --to a new file (a backup never overwrites one).`);
    throw new ConfigurationError(
      `${to} cannot be created (${(error as NodeJS.ErrnoException).code}): give --to a file in a writable folder.`,
    );
  }
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(to, { progress: () => ALL_PAGES_AT_ONCE });
    return { target: to, pages: totalPages };
  } finally {
    db.close();
  }
}
