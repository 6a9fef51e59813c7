// The one LISTEN connection of an instance: other instances' commits reach it as NOTIFY (triggers of the schema,
// migrations.ts, and the stores' own pg_notify), telling its caches what changed, its dispatcher that deliveries
// are due and its sign-in throttle which addresses are blocked. The connection comes back by itself when it is
// lost; while it is down nothing can be heard, so the caches stop trusting themselves (NotifiedCache) until it
// is back and everything counts as changed.
import type { Millis } from '../../core/time';
import pg from 'pg';
import { BoundedMap } from '../../core/bounded-map';
import { CHANNELS } from './migrations';

export interface Notifications {
  /** handler gets each payload of the invalidate channel; after a (re)connect it gets '*' (everything may have changed). */
  onInvalidate(handler: (payload: string) => void): void;
  /** handler is called on each NOTIFY of the due channel, and after a reconnect. */
  onDue(handler: () => void): void;
  /** handler gets each payload of the sign-in-blocked channel; after a reconnect it gets '*' (any may have been missed). */
  onSignInBlocked(handler: (payload: string) => void): void;
  /** False while the LISTEN connection is down: caches must read through (not serve nor fill). */
  connected(): boolean;
  /** The server process of the LISTEN connection (pg_backend_pid), or null while it is down. */
  listenerPid(): number | null;
  /** A counter bumped by every invalidation received and every (re)connect: caches note it before a read and fill only if unchanged after. */
  epoch(): number;
  close(): Promise<void>;
}

/** Waits between reconnection attempts: from the first, doubling up to the last, each with jitter. */
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;
/** A connection attempt that hangs (an unreachable host) is given up and retried. */
const CONNECT_TIMEOUT_MS = 10_000;

const LISTEN = Object.values(CHANNELS)
  .map((channel) => `LISTEN ${channel}`)
  .join('; ');

/** How every instance's LISTEN connection names itself in pg_stat_activity: one per running instance. */
export const LISTENER_NAME = 'jobhooks-listen';

/** Resolves once listening; rejects when the first connection fails, so a wrong URL fails the start-up. */
export async function listenForNotifications(url: string, onError: (error: unknown) => void): Promise<Notifications> {
  const invalidateHandlers: Array<(payload: string) => void> = [];
  const dueHandlers: Array<() => void> = [];
  const signInBlockedHandlers: Array<(payload: string) => void> = [];
  /** The listening connection; null while it is down. */
  let current: pg.Client | null = null;
  /** Each open connection's server process. */
  const pidOf = new WeakMap<pg.Client, number>();
  /** A connection being opened, so close() can abort it. */
  let opening: pg.Client | null = null;
  let reconnecting: Promise<void> | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let retryMs = FIRST_RETRY_MS;
  let epoch = 0;
  let closed = false;

  // A handler's failure is reported, not thrown into pg's socket handling, and does not keep the others from running.
  function call(handler: () => void): void {
    try {
      handler();
    } catch (error) {
      onError(error);
    }
  }

  function received(message: pg.Notification): void {
    if (message.channel === CHANNELS.invalidate) {
      epoch += 1;
      const payload = message.payload ?? '';
      for (const handler of invalidateHandlers) call(() => handler(payload));
    } else if (message.channel === CHANNELS.due) {
      for (const handler of dueHandlers) call(handler);
    } else if (message.channel === CHANNELS.signInBlocked) {
      const payload = message.payload ?? '';
      for (const handler of signInBlockedHandlers) call(() => handler(payload));
    }
  }

  // 'error' and 'end' both come when a connection dies: only the first of the current connection counts.
  function lost(client: pg.Client, error: unknown): void {
    if (client !== current) return;
    current = null;
    epoch += 1;
    onError(error);
    client.end().catch(() => undefined);
    scheduleReconnect();
  }

  async function open(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: url,
      application_name: LISTENER_NAME,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // Over TCP, a peer that vanished without a word is found out instead of listened to forever.
      keepAlive: true,
    });
    client.on('notification', received);
    client.on('error', (error) => lost(client, error));
    client.on('end', () => lost(client, new Error('the LISTEN connection ended')));
    opening = client;
    try {
      await client.connect();
      pidOf.set(client, (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
      // Last, so pg_stat_activity shows this connection's query as the LISTEN it is.
      await client.query(LISTEN);
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    } finally {
      opening = null;
    }
  }

  function scheduleReconnect(): void {
    if (closed) return;
    // Jitter, so instances that lost the database together do not all come back in the same millisecond.
    const delay = retryMs * (0.5 + Math.random() / 2);
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      reconnecting = reconnect().finally(() => {
        reconnecting = null;
      });
    }, delay);
    // Waiting to reconnect is no reason for the process to stay up.
    retryTimer.unref();
  }

  async function reconnect(): Promise<void> {
    let client: pg.Client;
    try {
      client = await open();
    } catch {
      // Reported once, when the connection was lost; attempts fail quietly until it is back.
      scheduleReconnect();
      return;
    }
    if (closed) {
      await client.end().catch(() => undefined);
      return;
    }
    current = client;
    retryMs = FIRST_RETRY_MS;
    epoch += 1;
    // Whatever was sent while the connection was down is lost: everything may have changed, anything may be due.
    for (const handler of invalidateHandlers) call(() => handler('*'));
    for (const handler of dueHandlers) call(handler);
    for (const handler of signInBlockedHandlers) call(() => handler('*'));
  }

  current = await open();

  return {
    onInvalidate: (handler) => {
      invalidateHandlers.push(handler);
    },
    onDue: (handler) => {
      dueHandlers.push(handler);
    },
    onSignInBlocked: (handler) => {
      signInBlockedHandlers.push(handler);
    },
    connected: () => current !== null,
    listenerPid: () => (current === null ? null : (pidOf.get(current) ?? null)),
    epoch: () => epoch,
    async close() {
      if (closed) return;
      closed = true;
      if (retryTimer !== null) clearTimeout(retryTimer);
      retryTimer = null;
      // The socket is cut rather than end()ed: end() during the handshake leaves pg's connect() pending forever
      // (and waits for a goodbye an unresponsive server never sends), so the reconnect would never finish.
      opening?.connection.stream.destroy();
      await reconnecting;
      const client = current;
      current = null;
      await client?.end().catch(() => undefined);
    },
  };
}

/**
 * How long a kept row may answer without a new read, whatever was heard: the bound on staleness if a
 * notification never arrives while the LISTEN connection still looks alive (a peer gone without a word, until
 * TCP keepalive finds out). docs/operating.md#postgresql-and-several-instances states it as the bound for a revoke
 * to reach every instance.
 */
export const CACHE_TTL_MS: Millis = 1_000;

/**
 * An in-memory cache of rows other instances may change, by the rules of Notifications: nothing is served or
 * kept while the LISTEN connection is down, a read is kept only if no invalidation, heard or made here, came
 * while it ran (so a row read before a change is never kept after it), and nothing is kept longer than
 * CACHE_TTL_MS. The owner evicts on what it hears.
 */
export class NotifiedCache<K, V> {
  private readonly entries: BoundedMap<K, { value: V; keptAt: Millis }>;
  /** This process's own evictions, which the epoch does not count. */
  private evictions = 0;

  constructor(
    private readonly notifications: Notifications,
    limit: number,
    /** A monotonic clock in milliseconds; tests pass their own. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.entries = new BoundedMap<K, { value: V; keptAt: Millis }>(limit);
  }

  /** The kept value of `key`, else what `read` finds; only found values (not null) are kept. */
  async get(key: K, read: () => Promise<V | null>): Promise<V | null> {
    if (this.notifications.connected()) {
      const kept = this.entries.get(key);
      if (kept !== undefined && this.now() - kept.keptAt < CACHE_TTL_MS) return kept.value;
    }
    const before = this.stamp();
    const readAt = this.now();
    const found = await read();
    if (found !== null && this.notifications.connected() && this.stamp() === before)
      this.entries.set(key, { value: found, keptAt: readAt });
    return found;
  }

  delete(key: K): void {
    this.evictions += 1;
    this.entries.delete(key);
  }

  clear(): void {
    this.evictions += 1;
    this.entries.clear();
  }

  /** Both counters only grow, so their sum is unchanged exactly when neither changed. */
  private stamp(): number {
    return this.notifications.epoch() + this.evictions;
  }
}
