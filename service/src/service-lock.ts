// A pid file beside the database while the service runs, so that commands that must not run beside it
// (`jobhooks secret-key rotate`) can refuse. A file left by a killed service names a dead process: ignored.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const lockFileOf = (databasePath: string) => `${databasePath}.pid`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of a live service on this database, or null. */
export function runningServiceOf(databasePath: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(lockFileOf(databasePath), 'utf8').trim());
  } catch {
    return null;
  }
  return Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : null;
}

/** Marks the database as served by this process; the returned function unmarks it. */
export function markServiceRunning(databasePath: string): () => void {
  writeFileSync(lockFileOf(databasePath), `${process.pid}\n`, { mode: 0o600 });
  return () => rmSync(lockFileOf(databasePath), { force: true });
}
