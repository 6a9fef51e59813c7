// Each client address's window of failed sign-ins in PostgreSQL, counted by every instance. A write that begins
// a block announces it on the sign-in-blocked channel in the same transaction (so it is heard once committed);
// an instance that was not listening then reads every block on record instead.
import type { Millis } from '../../core/time';
import type { SignInWindowsStore } from '../store';
import { type PgDatabase, prepared } from './database';
import { CHANNELS } from './migrations';
import type { Notifications } from './notifications';
import { updateWindow, type WindowTable } from './rate-windows';

const CLIENT_WINDOWS: WindowTable = {
  selectLocked: prepared(`
    SELECT window_start_ms, count, blocked_until_ms FROM sign_in_windows WHERE client_key = $1 FOR UPDATE`),
  insertPlaceholder: prepared(`
    INSERT INTO sign_in_windows (client_key, window_start_ms, count, blocked_until_ms)
    VALUES ($1, 0, 0, NULL) ON CONFLICT (client_key) DO NOTHING`),
  write: prepared(`
    UPDATE sign_in_windows SET window_start_ms = $2, count = $3, blocked_until_ms = $4 WHERE client_key = $1`),
  describe: ([clientKey]) => `The sign-in window of ${String(clientKey)}`,
  // Few and far between, and a count lost in a crash would give a guesser more tries: each waits for the disk.
  waitForDisk: true,
};

const ANNOUNCE_BLOCK = `SELECT pg_notify('${CHANNELS.signInBlocked}', $1)`;
// The latest-ending first, no more than an instance keeps (sign-in-throttle.ts remembers 10,000 addresses).
const BLOCKS_ON_RECORD = `
  SELECT client_key, blocked_until_ms FROM sign_in_windows WHERE blocked_until_ms IS NOT NULL
   ORDER BY blocked_until_ms DESC LIMIT 10000`;
const FORGET_ENDED = `
  DELETE FROM sign_in_windows
   WHERE window_start_ms <= $1::bigint - $2::bigint AND (blocked_until_ms IS NULL OR blocked_until_ms <= $1)`;

/** The announcement's payload: the time first, since a client key (an IPv6 /64) holds colons but no space. */
const announcement = (clientKey: string, blockedUntilMs: Millis) => `${blockedUntilMs} ${clientKey}`;

function parseAnnouncement(payload: string): { clientKey: string; blockedUntilMs: Millis } | null {
  const space = payload.indexOf(' ');
  const blockedUntilMs = Number(payload.slice(0, space));
  return space > 0 && Number.isSafeInteger(blockedUntilMs)
    ? { clientKey: payload.slice(space + 1), blockedUntilMs }
    : null;
}

export function createPgSignInWindowsStore(
  db: PgDatabase,
  notifications: Notifications,
  /** A failure to read the blocks on record, away from any request. */
  onError: (error: unknown) => void,
): SignInWindowsStore {
  type Listener = (clientKey: string, blockedUntilMs: Millis) => void;
  const listeners: Listener[] = [];

  async function tellBlocksOnRecord(to: readonly Listener[]): Promise<void> {
    // A command's store (jobhooks token create...) has no throttle listening: nothing to read for.
    if (to.length === 0) return;
    try {
      const { rows } = await db.pool.query<{ client_key: string; blocked_until_ms: number }>(BLOCKS_ON_RECORD);
      for (const row of rows) for (const listener of to) listener(row.client_key, row.blocked_until_ms);
    } catch (error) {
      onError(error);
    }
  }

  notifications.onSignInBlocked((payload) => {
    if (payload === '*') {
      void tellBlocksOnRecord(listeners);
      return;
    }
    const block = parseAnnouncement(payload);
    if (block !== null) for (const listener of listeners) listener(block.clientKey, block.blockedUntilMs);
  });

  return {
    update: (clientKey, decide) =>
      updateWindow(db, CLIENT_WINDOWS, [clientKey], decide, async (client, before, after) => {
        if (after.blockedUntilMs !== null && after.blockedUntilMs !== before?.blockedUntilMs)
          await client.query(ANNOUNCE_BLOCK, [announcement(clientKey, after.blockedUntilMs)]);
      }),
    onBlocked(listener) {
      listeners.push(listener);
      void tellBlocksOnRecord([listener]);
    },
    async forgetEnded(nowMs, windowMs) {
      await db.pool.query(FORGET_ENDED, [nowMs, windowMs]);
    },
  };
}
