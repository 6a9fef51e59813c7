// Store contract: accounts, and API tokens kept as hashes, found only while unrevoked.
import type { ApiTokenRecord } from '../../../service/src/domain/account';
import { account, T0, useStore } from './fixtures';

const store = useStore();

function token(id: string, accountId: number, overrides: Partial<ApiTokenRecord> = {}): ApiTokenRecord {
  return {
    id,
    accountId,
    name: `token ${id}`,
    permissionSet: 'Account Admin',
    createdAt: T0,
    revokedAt: null,
    ...overrides,
  };
}

describe('accounts', () => {
  test('an inserted account is read back whole by id; an unknown id is null', async () => {
    const first = account(7, { name: 'Seven', plan: 'starter', createdAt: T0 + 5 });
    await store().accounts.insert(first);
    expect(await store().accounts.get(7)).toEqual(first);
    expect(await store().accounts.get(8)).toBeNull();
  });

  test('list is ordered by id and count counts every account', async () => {
    expect(await store().accounts.count()).toBe(0);
    for (const id of [30, 4, 12]) await store().accounts.insert(account(id));
    expect((await store().accounts.list()).map((a) => a.id)).toEqual([4, 12, 30]);
    expect(await store().accounts.count()).toBe(3);
  });
});

describe('API tokens', () => {
  beforeEach(async () => {
    await store().accounts.insert(account(1));
    await store().accounts.insert(account(2, { plan: 'starter' }));
  });

  test('findActiveByHash answers the token and its account; an unknown hash is null', async () => {
    const admin = token('tok_a', 2, { permissionSet: 'Job Runner', createdAt: T0 + 3 });
    await store().apiTokens.insert(admin, 'hash-a');
    expect(await store().apiTokens.findActiveByHash('hash-a')).toEqual({
      token: admin,
      account: account(2, { plan: 'starter' }),
    });
    expect(await store().apiTokens.findActiveByHash('hash-b')).toBeNull();
  });

  test("listForAccount gives only that account's tokens, oldest first, ties by id, revoked ones included", async () => {
    await store().apiTokens.insert(token('tok_c', 1, { createdAt: T0 + 2 }), 'h-c');
    await store().apiTokens.insert(token('tok_b', 1, { createdAt: T0 + 1 }), 'h-b');
    await store().apiTokens.insert(token('tok_a', 1, { createdAt: T0 + 2 }), 'h-a');
    await store().apiTokens.insert(token('tok_x', 2, { createdAt: T0 }), 'h-x');
    await store().apiTokens.revoke('tok_c', T0 + 9);
    const listed = await store().apiTokens.listForAccount(1);
    expect(listed.map((t) => t.id)).toEqual(['tok_b', 'tok_a', 'tok_c']);
    expect(listed[2]).toEqual(token('tok_c', 1, { createdAt: T0 + 2, revokedAt: T0 + 9 }));
    expect(await store().apiTokens.listForAccount(3)).toEqual([]);
  });

  test('a revoked token is refused at once, even right after it was found', async () => {
    await store().apiTokens.insert(token('tok_a', 1), 'hash-a');
    expect(await store().apiTokens.findActiveByHash('hash-a')).not.toBeNull();
    expect(await store().apiTokens.revoke('tok_a', T0 + 1)).toBe(true);
    expect(await store().apiTokens.findActiveByHash('hash-a')).toBeNull();
  });

  test('revoke is false for an unknown token and for one already revoked, and keeps the first revocation time', async () => {
    await store().apiTokens.insert(token('tok_a', 1), 'hash-a');
    expect(await store().apiTokens.revoke('tok_none', T0 + 1)).toBe(false);
    expect(await store().apiTokens.revoke('tok_a', T0 + 1)).toBe(true);
    expect(await store().apiTokens.revoke('tok_a', T0 + 2)).toBe(false);
    expect((await store().apiTokens.listForAccount(1))[0]!.revokedAt).toBe(T0 + 1);
  });

  test("revoking one token leaves the account's other tokens valid", async () => {
    await store().apiTokens.insert(token('tok_a', 1), 'hash-a');
    await store().apiTokens.insert(token('tok_b', 1), 'hash-b');
    await store().apiTokens.findActiveByHash('hash-b');
    await store().apiTokens.revoke('tok_a', T0 + 1);
    expect((await store().apiTokens.findActiveByHash('hash-b'))?.token.id).toBe('tok_b');
  });
});
