// Work several instances on one PostgreSQL database must do once, and news they must hear from each other.
// Named locks are session advisory locks held by a pooled connection for the task's length (the task itself
// uses other connections); the news is the due channel of the LISTEN connection (notifications.ts).
import type { Millis } from '../../core/time';
import type pg from 'pg';
import type { ClusterResult, ClusterStore } from '../store';
import type { PgDatabase } from './database';
import { ADVISORY_LOCKS } from './migrate';
import type { Notifications } from './notifications';

const LOCK = 'SELECT pg_advisory_lock($1, hashtext($2))';
const UNLOCK = 'SELECT pg_advisory_unlock($1, hashtext($2))';
const READ_RESULT = 'SELECT computed_at, result FROM cluster_results WHERE name = $1';
const WRITE_RESULT = `
  INSERT INTO cluster_results (name, computed_at, result) VALUES ($1, $2, $3)
  ON CONFLICT (name) DO UPDATE SET computed_at = excluded.computed_at, result = excluded.result`;

/**
 * A held connection's failure (PostgreSQL restarted, the session was killed) ends its session, which frees the
 * lock; the unlock then fails. Without a listener the client would throw it as an 'error' event and crash the
 * process: checked-out clients have none of the pool's.
 */
function ignoreLoss(): void {}

function release(client: pg.PoolClient, destroy: boolean): void {
  client.removeListener('error', ignoreLoss);
  client.release(destroy);
}

/** Frees the lock and gives the connection back; a connection that cannot unlock is closed, which frees it too. */
async function unlockAndRelease(client: pg.PoolClient, name: string): Promise<void> {
  try {
    await client.query(UNLOCK, [ADVISORY_LOCKS.named, name]);
  } catch {
    release(client, true);
    return;
  }
  release(client, false);
}

/** Runs `task` with the lock held by `client`, then frees both, whether the task succeeded or not. */
async function holding<T>(client: pg.PoolClient, name: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } finally {
    await unlockAndRelease(client, name);
  }
}

/** A connection holding the lock `name`, once it is free; one whose lock query failed is in no known state: closed. */
async function lockedConnection(db: PgDatabase, name: string): Promise<pg.PoolClient> {
  const client = await db.pool.connect();
  client.on('error', ignoreLoss);
  try {
    await client.query(LOCK, [ADVISORY_LOCKS.named, name]);
    return client;
  } catch (error) {
    release(client, true);
    throw error;
  }
}

/** The stored result of `name` if it was computed less than `maxAgeMs` before `nowMs`. */
async function freshResult<T extends ClusterResult>(
  db: PgDatabase,
  name: string,
  nowMs: Millis,
  maxAgeMs: Millis,
): Promise<T | null> {
  const { rows } = await db.pool.query<{ computed_at: number; result: T }>(READ_RESULT, [name]);
  const row = rows[0];
  return row !== undefined && nowMs - row.computed_at < maxAgeMs ? row.result : null;
}

/**
 * Runs work with at most `slots` at once, the others waiting in turn. A named lock holds a pooled connection while
 * its task takes others: with as many holders as connections, no task could get one, and every holder would wait
 * for ever (a pool of 2 with two metrics readings at once did). One connection always stays free of holders.
 */
function createLockSlots(slots: number) {
  let free = slots;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, or back to the free ones.
      const next = waiting.shift();
      if (next === undefined) free += 1;
      else next();
    }
  };
}

export function createPgClusterStore(db: PgDatabase, notifications: Notifications): ClusterStore {
  // The pool's size is at least 2 (config.ts): one connection for the holders' tasks.
  const withLockSlot = createLockSlots(Math.max(1, (db.pool.options.max ?? 10) - 1));
  // Waiters of this process take turns per name before taking a connection: each waiting for the lock on its own
  // connection could use up the pool, and the holder's task then wait for a connection forever.
  const turns = new Map<string, Promise<void>>();
  async function inTurn<T>(name: string, work: () => Promise<T>): Promise<T> {
    const previous = turns.get(name) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const last = previous.then(() => mine);
    turns.set(name, last);
    try {
      await previous;
      return await work();
    } finally {
      done();
      if (turns.get(name) === last) turns.delete(name);
    }
  }

  const whileLocked: ClusterStore['whileLocked'] = (name, task) =>
    inTurn(name, () => withLockSlot(async () => holding(await lockedConnection(db, name), name, task)));

  return {
    whileLocked,
    onDeliveriesQueued: (listener) => notifications.onDue(listener),
    async latest<T extends ClusterResult>(name: string, nowMs: Millis, maxAgeMs: Millis, task: () => Promise<T>) {
      const stored = await freshResult<T>(db, name, nowMs, maxAgeMs);
      if (stored !== null) return stored;
      // The instance that got the lock first computes; the others find its result once they have the lock.
      return whileLocked(`result:${name}`, async () => {
        const computedMeanwhile = await freshResult<T>(db, name, nowMs, maxAgeMs);
        if (computedMeanwhile !== null) return computedMeanwhile;
        const result = await task();
        await db.pool.query(WRITE_RESULT, [name, nowMs, JSON.stringify(result)]);
        return result;
      });
    },
  };
}
