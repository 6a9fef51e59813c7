// One service per SQLite file. The service holds an exclusive lock on a file beside the database (`<db>.lock`, a
// SQLite file kept empty) for as long as it runs: a second service, even in another container on the same volume,
// is refused before it touches the database, and the lock goes with the process however it ends. A pid file beside
// it (`<db>.pid`) names the holder in messages, and lets commands that must not run beside the service
// (`jobhooks secret-key rotate`) refuse. A pid file left by a killed service names a dead process: ignored.
import { dirname } from 'node:path';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ConfigurationError } from './core/errors';
import { makeFolder } from './core/make-folder';

const pidFileOf = (databasePath: string) => `${databasePath}.pid`;
const lockFileOf = (databasePath: string) => `${databasePath}.lock`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid the database's pid file holds, or null when there is none. */
function pidInFile(databasePath: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFileOf(databasePath), 'utf8').trim());
  } catch {
    return null;
  }
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

/** The pid in the database's pid file, if that process is alive and not this one. */
function markedPid(databasePath: string): number | null {
  const pid = pidInFile(databasePath);
  return pid !== null && pid !== process.pid && isAlive(pid) ? pid : null;
}

const isBusy = (error: unknown) => (error as { code?: unknown }).code === 'SQLITE_BUSY';

/**
 * The lock file opened and its exclusive lock taken; SQLITE_BUSY when another process holds it for longer than
 * `waitMs` (a command that checks for a running service holds it for an instant).
 */
function takeLock(databasePath: string, waitMs: number): Database.Database {
  const lock = new Database(lockFileOf(databasePath), { timeout: waitMs });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
    return lock;
  } catch (error) {
    lock.close();
    throw error;
  }
}

/** Whether another process holds the database's lock (a service that runs); false when there is no lock file yet. */
function lockedElsewhere(databasePath: string): boolean {
  let lock: Database.Database;
  try {
    lock = new Database(lockFileOf(databasePath), { timeout: 0, fileMustExist: true });
  } catch {
    return false;
  }
  try {
    lock.exec('BEGIN EXCLUSIVE');
    lock.exec('ROLLBACK');
    return false;
  } catch (error) {
    if (isBusy(error)) return true;
    throw error;
  } finally {
    lock.close();
  }
}

/** Who serves the database now ("pid 123"), or null when no service does. */
export function runningServiceOf(databasePath: string): string | null {
  const pid = markedPid(databasePath);
  if (pid !== null) return `pid ${pid}`;
  return lockedElsewhere(databasePath) ? 'a process that holds its lock file' : null;
}

/**
 * Holds the database for this process until the returned function is called (or the process ends); refuses, in one
 * sentence, when another service holds it. Taken before the database is opened, so a second service never upgrades
 * or writes it beside the first.
 */
export function claimDatabase(databasePath: string): () => void {
  makeFolder(dirname(databasePath));
  let lock: Database.Database;
  try {
    lock = takeLock(databasePath, 2_000);
  } catch (error) {
    if (!isBusy(error)) throw error;
    const pid = markedPid(databasePath);
    throw new ConfigurationError(
      `Another jobhooks service is serving ${databasePath}${pid === null ? '' : ` (pid ${pid})`}: a SQLite database takes one service. Stop that one first, or use PostgreSQL (JOBHOOKS_DATABASE_URL) to run several instances.`,
    );
  }
  // A service of a version from before the lock marks the file only.
  const marked = markedPid(databasePath);
  if (marked !== null) {
    lock.close();
    throw new ConfigurationError(
      `Another jobhooks process (pid ${marked}, in ${pidFileOf(databasePath)}) is serving ${databasePath}: stop it first. If no jobhooks runs there, delete that file.`,
    );
  }
  writeFileSync(pidFileOf(databasePath), `${process.pid}\n`, { mode: 0o600 });
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Only this process's mark: never one a later service wrote.
    if (pidInFile(databasePath) === process.pid) rmSync(pidFileOf(databasePath), { force: true });
    lock.close();
  };
}
