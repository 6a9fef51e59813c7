// Two instances' stores on one PostgreSQL database: caches kept right by notifications (also across a lost
// LISTEN connection), creates that hold per-account limits and idempotency keys across instances, named locks,
// and shared rate windows that lose no count.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { ApiTokenRecord } from '../../../service/src/domain/account';
import type { WebhookRecord } from '../../../service/src/domain/webhook';
import { createPgAccountsStore } from '../../../service/src/store/postgres/accounts';
import { createPgApiTokensStore } from '../../../service/src/store/postgres/api-tokens';
import { createPgClusterStore } from '../../../service/src/store/postgres/cluster';
import { openPool } from '../../../service/src/store/postgres/database';
import { migratePostgres } from '../../../service/src/store/postgres/migrate';
import { CHANNELS } from '../../../service/src/store/postgres/migrations';
import { listenForNotifications } from '../../../service/src/store/postgres/notifications';
import { createPgRateWindowsStore } from '../../../service/src/store/postgres/rate-windows';
import { createPgReadinessProbe } from '../../../service/src/store/postgres/readiness-probe';
import { createPgSecretKeysStore } from '../../../service/src/store/postgres/secret-keys';
import { createPgSignInWindowsStore } from '../../../service/src/store/postgres/sign-in-windows';
import { createPgWebhooksStore } from '../../../service/src/store/postgres/webhooks';
import type { IdempotencyClaim } from '../../../service/src/store/store';
import { CLUSTER_ENV, clusterUrl, createTestDatabase, useSuiteCluster } from '../../support/postgres';
import { sleep, waitFor } from '../../support/wait';
import { T0, webhook as contractWebhook } from '../contract/fixtures';

useSuiteCluster();

/** The parts of one instance's store these tests use, over their own pool and LISTEN connection. */
async function openInstance(url: string, poolSize = 5) {
  const errors: string[] = [];
  const db = openPool({ url, poolSize }, (error) => errors.push(`idle: ${String(error)}`));
  await migratePostgres(db);
  const notifications = await listenForNotifications(url, (error) => errors.push(`listen: ${String(error)}`));
  return {
    db,
    notifications,
    errors,
    accounts: createPgAccountsStore(db),
    apiTokens: createPgApiTokensStore(db, notifications),
    webhooks: createPgWebhooksStore(db),
    secretKeys: createPgSecretKeysStore(db, notifications),
    cluster: createPgClusterStore(db, notifications),
    rateWindows: createPgRateWindowsStore(db),
    signInWindows: createPgSignInWindowsStore(db, notifications, (error) => errors.push(`blocks: ${String(error)}`)),
    checkReadiness: createPgReadinessProbe(db, () => T0),
    close: async () => {
      await notifications.close();
      await db.close();
    },
  };
}
type Instance = Awaited<ReturnType<typeof openInstance>>;

let url: string;
let a: Instance;
let b: Instance;
beforeEach(async () => {
  url = await createTestDatabase();
  a = await openInstance(url);
  b = await openInstance(url);
  await a.accounts.insert({ id: 1, identifier: 'act_1', name: 'One', plan: 'enterprise', createdAt: T0 });
});
afterEach(async () => {
  await Promise.all([a.close(), b.close()]);
});

/** One statement on a connection of its own; `unnoticed`: with the triggers off, so nobody is notified. */
async function sql<R extends pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
  unnoticed = false,
  on = url,
): Promise<R[]> {
  const client = new pg.Client({ connectionString: on });
  await client.connect();
  try {
    if (unnoticed) await client.query('SET session_replication_role = replica');
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A change whose notification is lost, as one made while the LISTEN connection was down. */
const unnoticed = (text: string, values: unknown[]) => sql(text, values, true);

/** Cuts every LISTEN connection of the database, as a PostgreSQL restart or a network cut would. */
async function cutListenConnections(): Promise<number> {
  // From another database, so it works while this one refuses connections.
  const rows = await sql<{ pid: number }>(
    `SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'`,
    [new URL(url).pathname.slice(1)],
    false,
    clusterUrl('postgres'),
  );
  return rows.length;
}

async function reconnected(instance: Instance): Promise<void> {
  await waitFor(() => !instance.notifications.connected(), 'the LISTEN connection to be seen lost', 5_000);
  await waitFor(() => instance.notifications.connected(), 'the LISTEN connection to come back', 10_000);
}

/** A webhook of account 1, as the store contract suite builds them. */
const webhook = (id: string, overrides: Partial<WebhookRecord> = {}): WebhookRecord =>
  contractWebhook(1, id, overrides);

const token: ApiTokenRecord = {
  id: 'tok_a',
  accountId: 1,
  name: 'admin',
  permissionSet: 'Account Admin',
  createdAt: T0,
  revokedAt: null,
};

describe('notifications', () => {
  test('the first connection failing rejects, so a wrong URL fails the start-up', async () => {
    await expect(listenForNotifications(clusterUrl('no_such_database'), () => undefined)).rejects.toThrow(
      /no_such_database/,
    );
  });

  test('invalidations and due news reach the handlers; a reconnect reports once and counts as everything', async () => {
    const payloads: string[] = [];
    let dues = 0;
    a.notifications.onInvalidate((payload) => payloads.push(payload));
    a.notifications.onDue(() => (dues += 1));
    const epoch = a.notifications.epoch();
    await sql(`NOTIFY jobhooks_invalidate, 'w:x,y'; NOTIFY jobhooks_due`);
    await waitFor(() => payloads.length === 1 && dues === 1, 'the notifications');
    expect(payloads).toEqual(['w:x,y']);
    expect(a.notifications.epoch()).toBe(epoch + 1);

    expect(await cutListenConnections()).toBe(2);
    await reconnected(a);
    await waitFor(() => payloads.length === 2 && dues === 2, 'the news of the reconnect');
    expect(payloads).toEqual(['w:x,y', '*']);
    expect(a.notifications.epoch()).toBeGreaterThanOrEqual(epoch + 3);
    expect(a.errors).toEqual([expect.stringMatching(/^listen: .*terminat/)]);

    // Listening again.
    await sql(`NOTIFY jobhooks_invalidate, 't:*'`);
    await waitFor(() => payloads.length === 3, 'a notification after the reconnect');
    expect(payloads[2]).toBe('t:*');
  });

  test('while the database refuses connections it keeps trying quietly, and comes back when it accepts them', async () => {
    const database = new URL(url).pathname.slice(1);
    const admin = (allow: boolean) =>
      sql(`ALTER DATABASE ${database} ALLOW_CONNECTIONS ${allow}`, [], false, clusterUrl('postgres'));
    await admin(false);
    try {
      await cutListenConnections();
      await waitFor(() => !a.notifications.connected(), 'the LISTEN connection to be seen lost');
      await sleep(1_000);
      expect(a.notifications.connected()).toBe(false);
      expect(a.errors).toHaveLength(1);
    } finally {
      await admin(true);
    }
    await waitFor(() => a.notifications.connected(), 'the LISTEN connection to come back');
    expect(a.errors).toHaveLength(1);
  });

  test('close stops reconnecting', async () => {
    await cutListenConnections();
    await waitFor(() => !a.notifications.connected(), 'the LISTEN connection to be seen lost');
    await a.notifications.close();
    await waitFor(() => b.notifications.connected(), "b's LISTEN connection to come back");
    await sleep(500);
    expect(a.notifications.connected()).toBe(false);
    const listening = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'jobhooks-listen'`,
    );
    expect(listening[0]!.n).toBe(1);
  });

  test('close returns while a reconnect is stuck connecting', async () => {
    // A proxy on a unix socket: the first connection goes through to the cluster, later ones are held
    // unanswered, as a database host that accepts TCP but never finishes the handshake.
    const proxyDir = mkdtempSync(join(tmpdir(), 'jobhooks-pg-proxy-'));
    const throughSockets: net.Socket[] = [];
    const held: net.Socket[] = [];
    const proxy = net.createServer((socket) => {
      if (throughSockets.length > 0) {
        held.push(socket);
        return;
      }
      const upstream = net.connect(join(process.env[CLUSTER_ENV]!, '.s.PGSQL.5432'));
      socket.pipe(upstream).pipe(socket);
      throughSockets.push(socket, upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(join(proxyDir, '.s.PGSQL.5432'), resolve));
    try {
      const proxied = new URL(url);
      proxied.searchParams.set('host', proxyDir);
      const notifications = await listenForNotifications(proxied.toString(), () => undefined);
      for (const socket of throughSockets) socket.destroy();
      await waitFor(() => held.length > 0, 'a reconnect attempt', 5_000);
      const closing = notifications.close().then(() => 'closed');
      const outcome = await Promise.race([closing, sleep(3_000).then(() => 'still closing after 3 s')]);
      expect(outcome).toBe('closed');
      expect(notifications.connected()).toBe(false);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
      rmSync(proxyDir, { recursive: true, force: true });
    }
  });
});

describe('token cache', () => {
  beforeEach(async () => {
    await a.apiTokens.insert(token, 'hash-a');
  });

  test('a revoke made through another instance is refused here once its notification arrives', async () => {
    expect(await a.apiTokens.findActiveByHash('hash-a')).not.toBeNull();
    expect(await b.apiTokens.revoke('tok_a', T0 + 1)).toBe(true);
    await waitFor(async () => (await a.apiTokens.findActiveByHash('hash-a')) === null, 'the revoke to be seen');
  });

  test('a revoke whose notification was lost is refused while disconnected and after the reconnect', async () => {
    expect(await a.apiTokens.findActiveByHash('hash-a')).not.toBeNull();
    await unnoticed('UPDATE api_tokens SET revoked_at = $1 WHERE id = $2', [T0 + 1, 'tok_a']);
    // Kept in memory: nothing said it changed.
    expect(await a.apiTokens.findActiveByHash('hash-a')).not.toBeNull();
    await cutListenConnections();
    await waitFor(() => !a.notifications.connected(), 'the LISTEN connection to be seen lost');
    expect(await a.apiTokens.findActiveByHash('hash-a')).toBeNull();
    await waitFor(() => a.notifications.connected(), 'the LISTEN connection to come back');
    expect(await a.apiTokens.findActiveByHash('hash-a')).toBeNull();
  });

  test("this store's own revoke is refused at once, even with a lookup under way", async () => {
    const [, revoked] = await Promise.all([
      a.apiTokens.findActiveByHash('hash-a'),
      a.apiTokens.revoke('tok_a', T0 + 1),
    ]);
    expect(revoked).toBe(true);
    expect(await a.apiTokens.findActiveByHash('hash-a')).toBeNull();
  });
});

describe('webhook reads', () => {
  beforeEach(async () => {
    await a.webhooks.create(webhook('wsu_a'), { maxPerAccount: 10, idempotency: null });
  });

  test('a change committed through another instance is read here at once, with no notification needed', async () => {
    // A client behind a load balancer writes through one instance and reads back through the other.
    expect((await a.webhooks.get(1, 'wsu_a'))!.name).toBe('hook wsu_a');
    await b.webhooks.update(1, 'wsu_a', (current) => ({ ...current, name: 'renamed' }));
    expect((await a.webhooks.get(1, 'wsu_a'))!.name).toBe('renamed');
    // Even one nobody was told of.
    await unnoticed('UPDATE webhooks SET name = $1', ['quietly renamed']);
    expect((await a.webhooks.get(1, 'wsu_a'))!.name).toBe('quietly renamed');
    await b.webhooks.delete(1, 'wsu_a');
    expect(await a.webhooks.get(1, 'wsu_a')).toBeNull();
  });

  test("another account's webhook is not found", async () => {
    expect(await a.webhooks.get(2, 'wsu_a')).toBeNull();
  });

  test('changes to webhooks, which every batch of delivery results makes, notify nobody', async () => {
    const heard: string[] = [];
    a.notifications.onInvalidate((payload) => heard.push(payload));
    await b.webhooks.update(1, 'wsu_a', (current) => ({ ...current, name: 'renamed' }));
    await sql(`NOTIFY jobhooks_invalidate, 'marker'`);
    await waitFor(() => heard.includes('marker'), 'the marker notification');
    expect(heard).toEqual(['marker']);
  });
});

describe('creates across instances', () => {
  test('concurrent creates at the per-account limit never exceed it', async () => {
    const limit = 7;
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? a : b).webhooks.create(webhook(`wsu_${i}`), { maxPerAccount: limit, idempotency: null }),
      ),
    );
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(limit);
    expect(outcomes.filter((o) => o.kind === 'limit_reached')).toHaveLength(30 - limit);
    expect((await b.webhooks.list(1, { offset: 0, limit: 100 }, 'job')).total).toBe(limit);
  });

  test('an idempotency key is used once: concurrent creates on both instances replay the one created', async () => {
    const claim: IdempotencyClaim = { key: 'k1', requestHash: 'h1', notBefore: 0 };
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).webhooks.create(webhook(`wsu_${i}`), { maxPerAccount: 100, idempotency: claim }),
      ),
    );
    const created = outcomes.flatMap((o, i) => (o.kind === 'created' ? [`wsu_${i}`] : []));
    expect(created).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o.kind !== 'created'))
      expect(outcome).toEqual({ kind: 'replayed', requestHash: 'h1', webhookId: created[0] });
    expect((await a.webhooks.list(1, { offset: 0, limit: 100 }, 'job')).total).toBe(1);
  });
});

describe('cluster locks', () => {
  test('a lock whose connection is lost while held neither crashes the process nor stays held', async () => {
    const result = await a.cluster.whileLocked('purge', async () => {
      const killed = await sql(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND query LIKE 'SELECT pg_advisory_lock%'`,
      );
      expect(killed).toHaveLength(1);
      await sleep(200);
      return 'done';
    });
    expect(result).toBe('done');
    const free = (instance: Instance) =>
      Promise.race([instance.cluster.whileLocked('purge', async () => 'free'), sleep(3_000).then(() => 'still held')]);
    expect(await free(b)).toBe('free');
    expect(await free(a)).toBe('free');
  });

  test('a name another instance holds waits for it; another name does not', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = a.cluster.whileLocked('retention', async () => {
      order.push('a holds');
      await held;
      order.push('a frees');
    });
    await waitFor(() => order.length === 1, 'the lock held');
    const other = await b.cluster.whileLocked('other', async () => 'other ran');
    const waiter = b.cluster.whileLocked('retention', async () => order.push('b holds'));
    await sleep(200);
    expect(order).toEqual(['a holds']);
    release();
    await Promise.all([holder, waiter]);
    expect(other).toBe('other ran');
    expect(order).toEqual(['a holds', 'a frees', 'b holds']);
  });

  test("a query that waits for a busy pool longer than a connection's time limit still runs", async () => {
    const small = await openInstance(url, 2);
    try {
      // Both connections busy for 11 s, past the 10 s a new connection may take to be ready.
      const busy = [small.db.query('SELECT pg_sleep(11)'), small.db.query('SELECT pg_sleep(11)')];
      const waiting = small.db.query<{ one: number }>('SELECT 1 AS one');
      expect((await waiting).rows).toEqual([{ one: 1 }]);
      await Promise.all(busy);
    } finally {
      await small.close();
    }
  }, 30_000);

  test('locks of as many names as pooled connections, held at once, leave their tasks a connection', async () => {
    const small = await openInstance(url, 2);
    try {
      // Each task needs a connection of the pool while its lock's connection is held: two holders of a pool of
      // two would wait for ever.
      const task = (name: string) => async () => {
        await small.db.query('SELECT pg_sleep(0.05)');
        return name;
      };
      const names = ['result:cluster-gauges', 'result:delivery-rates', 'result:log-retention'];
      const done = Promise.all(names.map((name) => small.cluster.whileLocked(name, task(name))));
      expect(await Promise.race([done, sleep(10_000).then(() => 'stuck')])).toEqual(names);
    } finally {
      await small.close();
    }
  });

  test('whileLocked tasks take turns across instances, more waiters than pooled connections included', async () => {
    const small = await openInstance(url, 2);
    try {
      let running = 0;
      let most = 0;
      const task = async () => {
        running += 1;
        most = Math.max(most, running);
        // The task needs a connection of its own pool while the lock's connection waits.
        await small.db.query('SELECT pg_sleep(0.01)');
        running -= 1;
      };
      await Promise.all([
        ...Array.from({ length: 8 }, () => small.cluster.whileLocked('bootstrap', task)),
        ...Array.from({ length: 4 }, () => a.cluster.whileLocked('bootstrap', task)),
      ]);
      expect(most).toBe(1);
    } finally {
      await small.close();
    }
  });
});

describe('secret-key rotation', () => {
  test('an instance starting during a rotation waits for its commit and reads the new key check', async () => {
    await a.secretKeys.setKeyCheck('v1:old');
    const rotation = new pg.Client({ connectionString: url });
    await rotation.connect();
    try {
      await rotation.query('BEGIN');
      await rotation.query('SELECT sealed FROM secret_key_check WHERE id = 1 FOR UPDATE');
      await rotation.query(`UPDATE secret_key_check SET sealed = 'v1:new' WHERE id = 1`);
      let read: string | null | undefined;
      const reading = b.secretKeys.keyCheck().then((check) => {
        read = check;
      });
      await sleep(100);
      expect(read).toBeUndefined();
      await rotation.query('COMMIT');
      await reading;
      expect(read).toBe('v1:new');
    } finally {
      await rotation.end();
    }
  });

  test('re-sealing is refused, changing nothing, while another instance of the service is connected', async () => {
    await a.secretKeys.setKeyCheck('v1:old');
    const c = await openInstance(url);
    try {
      const reseal = () => a.secretKeys.resealAll((sealed) => `${sealed}+`, 'v1:new');
      // b and c listen as running instances do; a's own LISTEN connection (the command's) does not count.
      await expect(reseal()).rejects.toThrow(
        '2 other jobhooks processes are connected to this database (instances of the service, or commands): stop every instance first',
      );
      expect(await a.secretKeys.keyCheck()).toBe('v1:old');
      await c.close();
      await expect(reseal()).rejects.toThrow('Another jobhooks process is connected to this database');
      await b.notifications.close();
      expect(await reseal()).toBe(0);
      expect(await a.secretKeys.keyCheck()).toBe('v1:new');
    } finally {
      await c.close();
    }
  });

  /** A transaction of another connection holding the webhooks table against the rotation's lock, until released. */
  async function holdWebhooks(): Promise<{ release(): Promise<void> }> {
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE webhooks IN ROW EXCLUSIVE MODE');
    return {
      release: async () => {
        await holder.query('ROLLBACK');
        await holder.end();
      },
    };
  }

  test('a refused rotation refuses at once, without first waiting for the lock behind running writes', async () => {
    await a.secretKeys.setKeyCheck('v1:old');
    const writes = await holdWebhooks();
    try {
      // b is connected; a's lock would wait for the held table until released.
      await expect(a.secretKeys.resealAll((sealed) => sealed, 'v1:new')).rejects.toThrow('Another jobhooks process');
    } finally {
      await writes.release();
    }
  });

  test('an instance that connects while the rotation waits for its lock is seen once the lock is held', async () => {
    await a.secretKeys.setKeyCheck('v1:old');
    await b.notifications.close();
    const writes = await holdWebhooks();
    let c: Instance | null = null;
    try {
      const reseal = a.secretKeys.resealAll((sealed) => sealed, 'v1:new');
      const outcome = reseal.then(
        () => 'resealed',
        (error: unknown) => String(error),
      );
      await waitFor(
        async () =>
          (await sql(`SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'webhooks'::regclass`)).length > 0,
        'the rotation to wait for its lock',
      );
      c = await openInstance(url);
      await writes.release();
      expect(await outcome).toMatch('Another jobhooks process is connected');
      expect(await a.secretKeys.keyCheck()).toBe('v1:old');
    } finally {
      await writes.release().catch(() => undefined);
      await c?.close();
    }
  });
});

describe('sign-in windows', () => {
  test('a block is announced once, when it begins: rewriting the window with the same block says nothing', async () => {
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    try {
      await listener.query(`LISTEN ${CHANNELS.signInBlocked}`);
      const write = (clientKey: string, count: number, blockedUntilMs: number | null) =>
        a.signInWindows.update(clientKey, () => ({
          window: { windowStartMs: 1_000, count, blockedUntilMs },
          answer: null,
        }));
      await write('2001:db8:1:2::/64', 3, null);
      await write('2001:db8:1:2::/64', 4, 61_000);
      await write('2001:db8:1:2::/64', 5, 61_000);
      await write('198.51.100.7', 4, 61_000);
      // Announcements arrive in commit order: once the last has, any repeat of the first would have too.
      await waitFor(() => heard.length >= 2, 'the announcements');
      expect(heard).toEqual(['61000 2001:db8:1:2::/64', '61000 198.51.100.7']);
    } finally {
      await listener.end();
    }
  });
});

describe('rate windows', () => {
  test('counts from both instances at once add up exactly, the first window included', async () => {
    let decisions = 0;
    const bump = (current: { windowStartMs: number; count: number; blockedUntilMs: number | null } | undefined) => {
      decisions += 1;
      const count = (current?.count ?? 0) + 1;
      return { window: { windowStartMs: 1000, count, blockedUntilMs: null }, answer: count };
    };
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).rateWindows.update(1, 'api', bump)),
    );
    expect(decisions).toBe(40);
    expect(answers.sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const [row] = await sql<{ count: number }>(`SELECT count FROM rate_limit_windows WHERE account_id = 1`);
    expect(row!.count).toBe(40);
  });
});

test('readiness resolves on a working database and rejects on a closed pool', async () => {
  await expect(a.checkReadiness()).resolves.toBeUndefined();
  await expect(b.checkReadiness()).resolves.toBeUndefined();
  const c = await openInstance(url);
  await c.close();
  await expect(c.checkReadiness()).rejects.toThrow();
});

test('a notification handler that throws is reported, not thrown into the connection', async () => {
  const seen: string[] = [];
  a.notifications.onInvalidate(() => {
    throw new Error('handler failed');
  });
  a.notifications.onInvalidate((payload) => seen.push(payload));
  await sql(`NOTIFY jobhooks_invalidate, 'a:*'`);
  await waitFor(() => seen.length === 1, 'the second handler');
  expect(a.errors).toEqual([expect.stringContaining('handler failed')]);
  expect(a.notifications.connected()).toBe(true);
  a.errors.length = 0;
});
