// Store contract: the cluster's locks, readiness, the rows sealed with the secret key, the shared rate and sign-in
// windows, and which backend it is.
import type { SharedRateWindow } from '../../../service/src/store/store';
import { waitFor } from '../../support/wait';
import { account, addWebhook, backend, T0, useStore, webhook } from './fixtures';

const store = useStore();

test('the store says which backend it is', () => {
  expect(store().backend).toBe(backend);
});

test('checkReadiness resolves on a working database, again and again', async () => {
  await expect(store().checkReadiness()).resolves.toBeUndefined();
  await expect(store().checkReadiness()).resolves.toBeUndefined();
});

describe('cluster', () => {
  test('whileLocked runs the task once and resolves with its value', async () => {
    const task = jest.fn(async () => 42);
    expect(await store().cluster.whileLocked('purge', task)).toBe(42);
    expect(task).toHaveBeenCalledTimes(1);
  });

  test('whileLocked rejects with the failure of its task, and frees the lock for the next', async () => {
    await expect(
      store().cluster.whileLocked('purge', async () => {
        throw new Error('task failed');
      }),
    ).rejects.toThrow('task failed');
    expect(await store().cluster.whileLocked('purge', async () => 'ran')).toBe('ran');
  });

  test('a lock held under one name does not keep a task under another from running', async () => {
    const inner = await store().cluster.whileLocked('one', () =>
      store().cluster.whileLocked('two', async () => 'inner'),
    );
    expect(inner).toBe('inner');
  });
});

describe('secret keys', () => {
  beforeEach(async () => {
    await store().accounts.insert(account(1));
  });

  test('the key check is null until set, then the last one set', async () => {
    expect(await store().secretKeys.keyCheck()).toBeNull();
    await store().secretKeys.setKeyCheck('v1:check-1');
    expect(await store().secretKeys.keyCheck()).toBe('v1:check-1');
    await store().secretKeys.setKeyCheck('v1:check-2');
    expect(await store().secretKeys.keyCheck()).toBe('v1:check-2');
  });

  test("anySealedSecret is null without webhooks, then one webhook's sealed secret", async () => {
    expect(await store().secretKeys.anySealedSecret()).toBeNull();
    await addWebhook(store(), webhook(1, 'wsu_a', { sealedSecret: 'v1:a' }));
    await addWebhook(store(), webhook(1, 'wsu_b', { sealedSecret: 'v1:b' }));
    expect(['v1:a', 'v1:b']).toContain(await store().secretKeys.anySealedSecret());
  });

  test('resealAll reseals every secret, the replaced ones too, and the key check, and counts the webhooks', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a', { sealedSecret: 'v1:a' }));
    await addWebhook(store(), webhook(1, 'wsu_b', { sealedSecret: 'v1:b' }));
    await store().webhooks.changeSecret(1, 'wsu_b', (current) => ({
      sealedSecret: 'v1:b2',
      previousSealedSecret: current.sealedSecret,
      previousSecretUntil: T0 + 1,
      updatedAt: T0,
    }));
    await store().secretKeys.setKeyCheck('v1:check');
    await store().webhooks.get(1, 'wsu_a');
    await store().webhooks.get(1, 'wsu_b');

    const resealed: string[] = [];
    const count = await store().secretKeys.resealAll((sealed) => {
      resealed.push(sealed);
      return sealed.replace('v1:', 'v2:');
    }, 'v2:check');
    expect(count).toBe(2);
    expect(resealed.sort()).toEqual(['v1:a', 'v1:b', 'v1:b2']);
    expect(await store().secretKeys.keyCheck()).toBe('v2:check');
    expect(await store().webhooks.get(1, 'wsu_a')).toMatchObject({ sealedSecret: 'v2:a', previousSealedSecret: null });
    expect(await store().webhooks.get(1, 'wsu_b')).toMatchObject({
      sealedSecret: 'v2:b2',
      previousSealedSecret: 'v2:b',
      previousSecretUntil: T0 + 1,
    });
  });

  test('a reseal that throws changes nothing: no database holds secrets under two keys', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a', { sealedSecret: 'v1:a' }));
    await addWebhook(store(), webhook(1, 'wsu_b', { sealedSecret: 'v1:b' }));
    await store().secretKeys.setKeyCheck('v1:check');
    let calls = 0;
    await expect(
      store().secretKeys.resealAll((sealed) => {
        calls += 1;
        if (calls === 2) throw new Error('cannot open');
        return sealed.replace('v1:', 'v2:');
      }, 'v2:check'),
    ).rejects.toThrow('cannot open');
    expect(await store().secretKeys.keyCheck()).toBe('v1:check');
    expect((await store().webhooks.get(1, 'wsu_a'))!.sealedSecret).toBe('v1:a');
    expect((await store().webhooks.get(1, 'wsu_b'))!.sealedSecret).toBe('v1:b');
  });
});

describe('rate windows', () => {
  beforeEach(async () => {
    await store().accounts.insert(account(1));
    await store().accounts.insert(account(2));
  });
  const window = (count: number): SharedRateWindow => ({ windowStartMs: 1000, count, blockedUntilMs: null });

  test('an update sees the window the last one wrote, per account and budget, and answers what decide answered', async () => {
    const windows = store().rateWindows;
    const seen: Array<SharedRateWindow | undefined> = [];
    const bump = (current: SharedRateWindow | undefined) => {
      seen.push(current);
      return { window: window((current?.count ?? 0) + 1), answer: `count ${(current?.count ?? 0) + 1}` };
    };
    expect(await windows.update(1, 'api', bump)).toBe('count 1');
    expect(await windows.update(1, 'api', bump)).toBe('count 2');
    await windows.update(1, 'ingest', bump);
    await windows.update(2, 'api', bump);
    expect(seen).toEqual([undefined, window(1), undefined, undefined]);
    await windows.update(1, 'api', () => ({
      window: { windowStartMs: 2000, count: 0, blockedUntilMs: 9000 },
      answer: 0,
    }));
    expect(await windows.update(1, 'api', (current) => ({ window: current!, answer: current }))).toEqual({
      windowStartMs: 2000,
      count: 0,
      blockedUntilMs: 9000,
    });
  });

  test('concurrent updates of one window lose no count, and each is answered in the order it was asked', async () => {
    const windows = store().rateWindows;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        windows.update(1, 'api', (current) => {
          const count = (current?.count ?? 0) + 1;
          return { window: window(count), answer: count };
        }),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await windows.update(1, 'api', (current) => ({ window: current!, answer: current!.count }))).toBe(20);
  });
});

describe('sign-in windows', () => {
  const V6_CLIENT = '2001:db8:1:2::/64';
  const read = (clientKey: string) =>
    store().signInWindows.update(clientKey, (current) => ({
      window: current ?? { windowStartMs: 0, count: 0, blockedUntilMs: null },
      answer: current,
    }));
  const write = (clientKey: string, window: SharedRateWindow) =>
    store().signInWindows.update(clientKey, () => ({ window, answer: null }));
  /** What a listener heard, each block once: a block both on record and announced may be told twice. */
  function listen(): { heard: () => Array<[string, number]> } {
    const heard = new Map<string, [string, number]>();
    store().signInWindows.onBlocked((clientKey, until) => heard.set(`${clientKey} ${until}`, [clientKey, until]));
    return { heard: () => [...heard.values()] };
  }

  test('a window that begins a block is announced, with its client key and end', async () => {
    const { heard } = listen();
    await write(V6_CLIENT, { windowStartMs: T0, count: 3, blockedUntilMs: null });
    await write(V6_CLIENT, { windowStartMs: T0, count: 4, blockedUntilMs: T0 + 60_000 });
    // Written again with the same block (a later failure while blocked).
    await write(V6_CLIENT, { windowStartMs: T0, count: 4, blockedUntilMs: T0 + 60_000 });
    await write('198.51.100.7', { windowStartMs: T0, count: 4, blockedUntilMs: T0 + 30_000 });
    await waitFor(() => heard().length >= 2, 'two announcements');
    expect(heard()).toEqual([
      [V6_CLIENT, T0 + 60_000],
      ['198.51.100.7', T0 + 30_000],
    ]);
    expect(await read(V6_CLIENT)).toEqual({ windowStartMs: T0, count: 4, blockedUntilMs: T0 + 60_000 });
  });

  test('a listener is first told the blocks on record', async () => {
    await write('198.51.100.8', { windowStartMs: T0, count: 4, blockedUntilMs: T0 + 60_000 });
    await write('198.51.100.9', { windowStartMs: T0, count: 1, blockedUntilMs: null });
    const { heard } = listen();
    await waitFor(() => heard().length > 0, 'the blocks on record');
    expect(heard()).toEqual([['198.51.100.8', T0 + 60_000]]);
  });

  test('forgetEnded deletes the windows that ended with no block in force, and keeps the others', async () => {
    await write('10.0.0.1', { windowStartMs: T0 - 61_000, count: 2, blockedUntilMs: null });
    await write('10.0.0.2', { windowStartMs: T0 - 10_000, count: 2, blockedUntilMs: null });
    await write('10.0.0.3', { windowStartMs: T0 - 61_000, count: 9, blockedUntilMs: T0 + 5_000 });
    await write('10.0.0.4', { windowStartMs: T0 - 120_000, count: 9, blockedUntilMs: T0 - 60_000 });
    await store().signInWindows.forgetEnded(T0, 60_000);
    expect(await read('10.0.0.1')).toBeUndefined();
    expect(await read('10.0.0.2')).toEqual({ windowStartMs: T0 - 10_000, count: 2, blockedUntilMs: null });
    expect(await read('10.0.0.3')).toEqual({ windowStartMs: T0 - 61_000, count: 9, blockedUntilMs: T0 + 5_000 });
    expect(await read('10.0.0.4')).toBeUndefined();
  });
});
