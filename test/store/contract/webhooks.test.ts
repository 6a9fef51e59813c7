// Store contract: webhooks, their per-account limit, the idempotency keys of their creation, updates through a
// change of the current row, and secret rotation.
import { ROTATED_KEY_PREFIX, type WebhookRecord } from '../../../service/src/domain/webhook';
import type { IdempotencyClaim } from '../../../service/src/store/store';
import { openTestStore } from '../../support/stores';
import { account, addWebhook, backend, SECOND, T0, useStore, webhook } from './fixtures';

const store = useStore();

beforeEach(async () => {
  await store().accounts.insert(account(1));
  await store().accounts.insert(account(2));
});

const key = (name: string, requestHash = `hash-of-${name}`, notBefore = T0 - 3600 * SECOND): IdempotencyClaim => ({
  key: `sha256-of-${name}`,
  requestHash,
  notBefore,
});
const create = (record: WebhookRecord, maxPerAccount = 100, idempotency: IdempotencyClaim | null = null) =>
  store().webhooks.create(record, { maxPerAccount, idempotency });

describe('create, get and list', () => {
  test('a created webhook is read back whole, with its account identifier', async () => {
    const record = webhook(1, 'wsu_a', {
      eventTypes: ['job.run.started'],
      jobIds: ['9', '1', '30'],
      active: false,
      httpStatusCode: '200',
      consecutiveFailures: 2,
      failingSince: T0 - 10,
      lastFailureAt: T0 - 5,
    });
    expect(await create(record)).toEqual({ kind: 'created' });
    expect(await store().webhooks.get(1, 'wsu_a')).toEqual(record);
  });

  test("another account's webhook id is not found, also after its owner read it", async () => {
    await addWebhook(store(), webhook(1, 'wsu_a'));
    expect(await store().webhooks.get(1, 'wsu_a')).not.toBeNull();
    expect(await store().webhooks.get(2, 'wsu_a')).toBeNull();
    expect(await store().webhooks.get(1, 'wsu_none')).toBeNull();
  });

  test("list pages the account's webhooks in creation order, ties by id, with the account's total", async () => {
    for (const [id, createdAt] of [
      ['wsu_d', T0 + 3],
      ['wsu_b', T0 + 1],
      ['wsu_c', T0 + 1],
      ['wsu_a', T0 + 2],
      ['wsu_e', T0 + 4],
    ] as const)
      await addWebhook(store(), webhook(1, id, { createdAt }));
    await addWebhook(store(), webhook(2, 'wsu_other', { createdAt: T0 }));

    const all = await store().webhooks.list(1, { offset: 0, limit: 10 }, 'job');
    expect(all.items.map((w) => w.id)).toEqual(['wsu_b', 'wsu_c', 'wsu_a', 'wsu_d', 'wsu_e']);
    expect(all.total).toBe(5);
    const page = await store().webhooks.list(1, { offset: 1, limit: 2 }, 'job');
    expect(page).toEqual({ items: [all.items[1], all.items[2]], total: 5 });
    expect(await store().webhooks.list(1, { offset: 5, limit: 2 }, 'job')).toEqual({ items: [], total: 5 });
    expect(await store().webhooks.list(3, { offset: 0, limit: 10 }, 'job')).toEqual({ items: [], total: 0 });
  });
});

describe('the per-account limit', () => {
  test('a create at the limit is refused with the limit, and other accounts are not counted', async () => {
    await create(webhook(1, 'wsu_a'), 2);
    await create(webhook(1, 'wsu_b'), 2);
    await create(webhook(2, 'wsu_c'), 2);
    expect(await create(webhook(1, 'wsu_d'), 2)).toEqual({ kind: 'limit_reached', limit: 2 });
    expect(await store().webhooks.get(1, 'wsu_d')).toBeNull();
    expect(await create(webhook(2, 'wsu_e'), 2)).toEqual({ kind: 'created' });
  });

  test('many concurrent creates never take an account past its limit', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, (_, i) => create(webhook(1, `wsu_${String(i).padStart(2, '0')}`), 5)),
    );
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(5);
    expect(outcomes.filter((o) => o.kind === 'limit_reached')).toHaveLength(19);
    expect((await store().webhooks.list(1, { offset: 0, limit: 100 }, 'job')).total).toBe(5);
  });
});

describe('idempotency keys', () => {
  test('a create with a used key is replayed with the first request hash and webhook, and inserts nothing', async () => {
    expect(await create(webhook(1, 'wsu_a'), 100, key('k1', 'hash-1'))).toEqual({ kind: 'created' });
    expect(await create(webhook(1, 'wsu_b'), 100, key('k1', 'hash-2'))).toEqual({
      kind: 'replayed',
      requestHash: 'hash-1',
      webhookId: 'wsu_a',
    });
    expect(await store().webhooks.get(1, 'wsu_b')).toBeNull();
  });

  test('a replay is answered even when the account has reached its limit since', async () => {
    await create(webhook(1, 'wsu_a'), 1, key('k1'));
    expect(await create(webhook(1, 'wsu_b'), 1, key('k1'))).toMatchObject({ kind: 'replayed', webhookId: 'wsu_a' });
  });

  test("keys are per account: the same key on another account creates that account's webhook", async () => {
    await create(webhook(1, 'wsu_a'), 100, key('k1'));
    expect(await create(webhook(2, 'wsu_b'), 100, key('k1'))).toEqual({ kind: 'created' });
  });

  test('a key older than notBefore is expired: the create goes ahead, and the key names the new webhook', async () => {
    await create(webhook(1, 'wsu_a', { createdAt: T0 }), 100, key('k1', 'hash-1', T0 - SECOND));
    const later = T0 + 86_400 * SECOND;
    expect(await create(webhook(1, 'wsu_b', { createdAt: later }), 100, key('k1', 'hash-2', T0 + 1))).toEqual({
      kind: 'created',
    });
    expect(await create(webhook(1, 'wsu_c', { createdAt: later }), 100, key('k1', 'hash-3', T0 + 1))).toEqual({
      kind: 'replayed',
      requestHash: 'hash-2',
      webhookId: 'wsu_b',
    });
  });

  test('concurrent creates with one key create one webhook, and the others replay it', async () => {
    const outcomes = await Promise.all(
      ['wsu_a', 'wsu_b', 'wsu_c', 'wsu_d', 'wsu_e', 'wsu_f'].map((id) => create(webhook(1, id), 100, key('k1', 'h'))),
    );
    const created = outcomes.flatMap((o, i) => (o.kind === 'created' ? [`wsu_${'abcdef'[i]}`] : []));
    expect(created).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o.kind !== 'created'))
      expect(outcome).toEqual({ kind: 'replayed', requestHash: 'h', webhookId: created[0] });
    expect((await store().webhooks.list(1, { offset: 0, limit: 100 }, 'job')).total).toBe(1);
  });
});

describe('update', () => {
  test('the change sees the current row; the new record is returned and read back at once', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a', { consecutiveFailures: 3, archivedAt: T0 + 1, archivedReason: 'x' }));
    const seen: WebhookRecord[] = [];
    expect(await store().webhooks.get(1, 'wsu_a')).not.toBeNull(); // kept in memory, where a backend keeps it
    const updated = await store().webhooks.update(1, 'wsu_a', (current) => {
      seen.push(current);
      return {
        name: 'renamed',
        description: 'new',
        clientUrl: 'http://127.0.0.1:9/',
        eventTypes: ['job.run.started'],
        jobIds: ['5'],
        active: false,
        maxRequestsPerSecond: 7,
        updatedAt: T0 + 100,
        consecutiveFailures: 0,
        failingSince: null,
        lastFailureAt: null,
        archivedAt: null,
        archivedReason: null,
      };
    });
    expect(seen.map((s) => s.consecutiveFailures)).toEqual([3]);
    const expected = webhook(1, 'wsu_a', {
      name: 'renamed',
      description: 'new',
      clientUrl: 'http://127.0.0.1:9/',
      eventTypes: ['job.run.started'],
      jobIds: ['5'],
      active: false,
      maxRequestsPerSecond: 7,
      updatedAt: T0 + 100,
      // The new client_url reset the endpoint's health: its first revision.
      endpointHealthRevision: 1,
    });
    expect(updated).toEqual(expected);
    expect(await store().webhooks.get(1, 'wsu_a')).toEqual(expected);
  });

  test("an absent webhook, or another account's, is null and its change is not asked for", async () => {
    await addWebhook(store(), webhook(1, 'wsu_a'));
    const change = jest.fn((current: WebhookRecord) => ({ ...current, name: 'taken' }));
    expect(await store().webhooks.update(1, 'wsu_none', change)).toBeNull();
    expect(await store().webhooks.update(2, 'wsu_a', change)).toBeNull();
    expect(change).not.toHaveBeenCalled();
    expect((await store().webhooks.get(1, 'wsu_a'))!.name).toBe('hook wsu_a');
  });

  test('a change that throws rejects the update and leaves the webhook as it was', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a'));
    await expect(
      store().webhooks.update(1, 'wsu_a', () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await store().webhooks.get(1, 'wsu_a')).toEqual(webhook(1, 'wsu_a'));
  });
});

describe('secrets', () => {
  const rotate = (next: string, until: number) => (current: WebhookRecord) => ({
    sealedSecret: next,
    previousSealedSecret: current.sealedSecret,
    previousSecretUntil: until,
    updatedAt: T0 + 50,
  });

  test('changeSecret writes the new secret and the replaced one, and get shows them at once', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a', { sealedSecret: 'v1:old' }));
    await store().webhooks.get(1, 'wsu_a');
    const changed = await store().webhooks.changeSecret(1, 'wsu_a', rotate('v1:new', T0 + 3600 * SECOND));
    const expected = webhook(1, 'wsu_a', {
      sealedSecret: 'v1:new',
      previousSealedSecret: 'v1:old',
      previousSecretUntil: T0 + 3600 * SECOND,
      updatedAt: T0 + 50,
    });
    expect(changed).toEqual(expected);
    expect(await store().webhooks.get(1, 'wsu_a')).toEqual(expected);
    expect(await store().webhooks.changeSecret(2, 'wsu_a', rotate('v1:x', T0))).toBeNull();
  });

  test("a rotation marks the webhook's creation keys once, so a replay does not show the new secret", async () => {
    await create(webhook(1, 'wsu_a'), 100, key('k1', 'hash-1'));
    await create(webhook(1, 'wsu_b'), 100, key('k2', 'hash-2'));
    await store().webhooks.changeSecret(1, 'wsu_a', rotate('v1:new', T0 + SECOND));
    await store().webhooks.changeSecret(1, 'wsu_a', rotate('v1:newer', T0 + 2 * SECOND));
    expect(await create(webhook(1, 'wsu_x'), 100, key('k1'))).toEqual({
      kind: 'replayed',
      requestHash: `${ROTATED_KEY_PREFIX}hash-1`,
      webhookId: 'wsu_a',
    });
    expect(await create(webhook(1, 'wsu_y'), 100, key('k2'))).toEqual({
      kind: 'replayed',
      requestHash: 'hash-2',
      webhookId: 'wsu_b',
    });
  });

  test('a secret change that keeps the secret (only its overlap) does not mark the keys', async () => {
    await create(webhook(1, 'wsu_a', { sealedSecret: 'v1:s' }), 100, key('k1', 'hash-1'));
    await store().webhooks.changeSecret(1, 'wsu_a', (current) => ({
      sealedSecret: current.sealedSecret,
      previousSealedSecret: null,
      previousSecretUntil: null,
      updatedAt: T0 + 1,
    }));
    expect(await create(webhook(1, 'wsu_x'), 100, key('k1'))).toMatchObject({ requestHash: 'hash-1' });
  });

  test('dropEndedSecrets forgets the replaced secrets whose overlap ended by now, and counts their webhooks', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a', { sealedSecret: 'v1:a' }));
    await addWebhook(store(), webhook(1, 'wsu_b', { sealedSecret: 'v1:b' }));
    await addWebhook(store(), webhook(2, 'wsu_c', { sealedSecret: 'v1:c' }));
    await addWebhook(store(), webhook(2, 'wsu_d'));
    await store().webhooks.changeSecret(1, 'wsu_a', rotate('v1:a2', T0 + 10));
    await store().webhooks.changeSecret(1, 'wsu_b', rotate('v1:b2', T0 + 20));
    await store().webhooks.changeSecret(2, 'wsu_c', rotate('v1:c2', T0 + 30));
    await store().webhooks.get(1, 'wsu_b');

    expect(await store().webhooks.dropEndedSecrets(T0 + 20)).toBe(2);
    const after = await Promise.all(
      [
        [1, 'wsu_a'],
        [1, 'wsu_b'],
        [2, 'wsu_c'],
      ].map(([accountId, id]) => store().webhooks.get(accountId as number, id as string)),
    );
    expect(after.map((w) => [w!.sealedSecret, w!.previousSealedSecret, w!.previousSecretUntil])).toEqual([
      ['v1:a2', null, null],
      ['v1:b2', null, null],
      ['v1:c2', 'v1:c', T0 + 30],
    ]);
    expect(await store().webhooks.dropEndedSecrets(T0 + 20)).toBe(0);
  });
});

describe('delete and counts', () => {
  test('a deleted webhook is gone at once; deleting it again, or from another account, is false', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a'));
    await addWebhook(store(), webhook(1, 'wsu_b'));
    await store().webhooks.get(1, 'wsu_a');
    expect(await store().webhooks.delete(2, 'wsu_a')).toBe(false);
    expect(await store().webhooks.get(1, 'wsu_a')).not.toBeNull();
    expect(await store().webhooks.delete(1, 'wsu_a')).toBe(true);
    expect(await store().webhooks.get(1, 'wsu_a')).toBeNull();
    expect(await store().webhooks.delete(1, 'wsu_a')).toBe(false);
    expect(await store().webhooks.list(1, { offset: 0, limit: 10 }, 'job')).toMatchObject({ total: 1 });
  });

  test('a deleted webhook frees its place under the limit', async () => {
    await create(webhook(1, 'wsu_a'), 1);
    await store().webhooks.delete(1, 'wsu_a');
    expect(await create(webhook(1, 'wsu_b'), 1)).toEqual({ kind: 'created' });
  });

  test('countArchived counts the archived webhooks of every account', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a', { archivedAt: T0, archivedReason: 'gone' }));
    await addWebhook(store(), webhook(1, 'wsu_b'));
    await addWebhook(store(), webhook(2, 'wsu_c'));
    expect(await store().webhooks.countArchived()).toBe(1);
    await store().webhooks.update(2, 'wsu_c', (current) => ({ ...current, archivedAt: T0 + 1, archivedReason: 'x' }));
    expect(await store().webhooks.countArchived()).toBe(2);
  });
});

describe("a rate-limited webhook's start slots", () => {
  const SPACING = SECOND / 5;
  /** The endpoint a slot is granted with: the webhook's URL and secrets as they are then. */
  const endpointOf = (id: string) => ({
    clientUrl: `http://127.0.0.1:9/${id}`,
    sealedSecret: `v1:sealed-${id}`,
    previousSealedSecret: null,
    previousSecretUntil: null,
  });

  test('of two asks at the same time one is granted; the other is told when, and is granted then', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a', { maxRequestsPerSecond: 5 }));
    const slots = store().webhooks;
    expect(await slots.takeStartSlot('wsu_a', T0, SPACING)).toEqual({
      granted: true,
      nextAt: T0 + SPACING,
      endpoint: endpointOf('wsu_a'),
    });
    expect(await slots.takeStartSlot('wsu_a', T0, SPACING)).toEqual({ granted: false, retryAt: T0 + SPACING });
    expect(await slots.takeStartSlot('wsu_a', T0 + SPACING - 1, SPACING)).toEqual({
      granted: false,
      retryAt: T0 + SPACING,
    });
    expect(await slots.takeStartSlot('wsu_a', T0 + SPACING, SPACING)).toEqual({
      granted: true,
      nextAt: T0 + 2 * SPACING,
      endpoint: endpointOf('wsu_a'),
    });
  });

  test('a slot is granted with the URL the webhook has at that moment, not at the claim', async () => {
    // (Its secrets are read with it: the dispatcher's start-slot test rotates one through the API.)
    await addWebhook(store(), webhook(1, 'wsu_a', { maxRequestsPerSecond: 5 }));
    await store().webhooks.update(1, 'wsu_a', (current) => ({ ...current, clientUrl: 'http://127.0.0.1:9/moved' }));
    expect(await store().webhooks.takeStartSlot('wsu_a', T0, SPACING)).toEqual({
      granted: true,
      nextAt: T0 + SPACING,
      endpoint: { ...endpointOf('wsu_a'), clientUrl: 'http://127.0.0.1:9/moved' },
    });
  });

  test('each webhook has its own slots', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a', { maxRequestsPerSecond: 5 }));
    await addWebhook(store(), webhook(1, 'wsu_b', { maxRequestsPerSecond: 5 }));
    expect(await store().webhooks.takeStartSlot('wsu_a', T0, SPACING)).toMatchObject({ granted: true });
    expect(await store().webhooks.takeStartSlot('wsu_b', T0, SPACING)).toMatchObject({ granted: true });
  });

  test('a webhook deactivated, archived or deleted since the claim gets no slot: it takes no deliveries', async () => {
    const stopped = { granted: false, stopped: true };
    await addWebhook(store(), webhook(1, 'wsu_off', { maxRequestsPerSecond: 5, active: false }));
    await addWebhook(
      store(),
      webhook(1, 'wsu_archived', { maxRequestsPerSecond: 5, archivedAt: T0, archivedReason: 'x' }),
    );
    expect(await store().webhooks.takeStartSlot('wsu_off', T0, SPACING)).toEqual(stopped);
    expect(await store().webhooks.takeStartSlot('wsu_archived', T0, SPACING)).toEqual(stopped);
    expect(await store().webhooks.takeStartSlot('wsu_gone', T0, SPACING)).toEqual(stopped);
    // Refused, it kept no slot: active again, the webhook is granted one at once.
    await store().webhooks.update(1, 'wsu_off', (current) => ({ ...current, active: true }));
    expect(await store().webhooks.takeStartSlot('wsu_off', T0, SPACING)).toEqual({
      granted: true,
      nextAt: T0 + SPACING,
      endpoint: endpointOf('wsu_off'),
    });
  });

  test('asks from two instances at once are never both granted within one spacing', async () => {
    await addWebhook(store(), webhook(1, 'wsu_a', { maxRequestsPerSecond: 5 }));
    // On PostgreSQL a second store on the same database, as another instance; one process owns a SQLite file.
    const other = backend === 'postgres' ? await openTestStore(backend, store.where().databaseUrl!) : null;
    try {
      const instances = [store(), other?.store ?? store()];
      // 60 asks, 20 ms apart in their times but all in flight at once: the later times often decided first.
      const asks = Array.from({ length: 60 }, (_, i) => ({ at: T0 + i * 20_000, instance: instances[i % 2]! }));
      const answers = await Promise.all(
        asks.map(({ at, instance }) => instance.webhooks.takeStartSlot('wsu_a', at, SPACING)),
      );
      const granted = asks.filter((_, i) => answers[i]!.granted).map(({ at }) => at);
      const gaps = granted.slice(1).map((at, i) => at - granted[i]!);
      expect(granted.length).toBeGreaterThan(0);
      expect(Math.min(...gaps, SPACING)).toBeGreaterThanOrEqual(SPACING);
      // Every refusal named a time after its own.
      for (const [i, answer] of answers.entries()) {
        if (answer.granted) continue;
        expect(answer).toEqual({ granted: false, retryAt: expect.any(Number) });
        expect((answer as { retryAt: number }).retryAt).toBeGreaterThan(asks[i]!.at);
      }
      // The last slot granted is the one stored: the next ask is refused until a spacing after it.
      expect(await store().webhooks.takeStartSlot('wsu_a', granted.at(-1)!, SPACING)).toEqual({
        granted: false,
        retryAt: granted.at(-1)! + SPACING,
      });
    } finally {
      await other?.close();
    }
  });
});
