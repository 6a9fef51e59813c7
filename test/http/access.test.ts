// Tokens see only their own account, read-only permission sets cannot write, revoked tokens and other plans are
// refused.
import { PERMISSION_SETS, WRITE_PERMISSION_SETS } from '@jobhooks/client/contract';
import {
  createWebhook,
  type Harness,
  startHarness,
  webhookPath,
  webhooksPath,
  validCreateBody,
} from '../support/harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('account isolation', () => {
  test("a token of account B can neither read, change, delete, test nor learn of account A's webhook", async () => {
    const hookOfA = await createWebhook(h);
    const tokenOfB = await h.token('Account Admin', 2);
    const hookOfB = (await h.call('POST', webhooksPath(2), { token: tokenOfB, body: validCreateBody() })).json().data;
    const before = await h.db.snapshot();

    // Through its own account's paths, A's webhook id looks exactly like an id that never existed.
    const neverExisted = 'wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ';
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PUT', '', validCreateBody()],
      ['DELETE', '', undefined],
      ['GET', '/test', undefined],
    ] as const) {
      const viaOwn = await h.call(method, webhookPath(hookOfA.id, 2) + suffix, { token: tokenOfB, body });
      const unknown = await h.call(method, webhookPath(neverExisted, 2) + suffix, { token: tokenOfB, body });
      expect(viaOwn.statusCode).toBe(404);
      expect(viaOwn.json().status).toEqual({ ...unknown.json().status, user_message: expect.any(String) });
      // Through A's paths, B is refused before anything is looked up.
      const viaA = await h.call(method, webhookPath(hookOfA.id, 1) + suffix, { token: tokenOfB, body });
      expect(viaA.statusCode).toBe(403);
    }
    const listOfB = (await h.call('GET', webhooksPath(2), { token: tokenOfB })).json();
    expect(listOfB.data.map((w: { id: string }) => w.id)).toEqual([hookOfB.id]);
    expect((await h.call('GET', webhooksPath(1), { token: tokenOfB })).statusCode).toBe(403);
    expect((await h.call('POST', webhooksPath(1), { token: tokenOfB, body: validCreateBody() })).statusCode).toBe(403);
    expect(await h.db.snapshot()).toBe(before);
  });

  test("the v2 accounts list shows only the token's own account", async () => {
    const tokenOfB = await h.token('Read-Only', 2);
    const body = (await h.call('GET', '/api/v2/accounts/', { token: tokenOfB })).json();
    expect(body.data.map((a: { id: number }) => a.id)).toEqual([2]);
  });

  test('a malformed account id in the path is a 404', async () => {
    expect((await h.call('GET', '/api/v3/accounts/abc/webhooks/subscriptions')).statusCode).toBe(404);
  });
});

describe('permission sets', () => {
  const readOnly = PERMISSION_SETS.filter((set) => !WRITE_PERMISSION_SETS.includes(set));

  test.each(readOnly)('%s can list and get but not create, update, test or delete', async (permissionSet) => {
    const hook = await createWebhook(h);
    const token = await h.token(permissionSet);
    const before = await h.db.snapshot();
    expect((await h.call('GET', webhooksPath(), { token })).statusCode).toBe(200);
    expect((await h.call('GET', webhookPath(hook.id), { token })).statusCode).toBe(200);
    const writes = [
      await h.call('POST', webhooksPath(), { token, body: validCreateBody() }),
      await h.call('PUT', webhookPath(hook.id), { token, body: validCreateBody({ name: 'x' }) }),
      await h.call('GET', `${webhookPath(hook.id)}/test`, { token }),
      await h.call('DELETE', webhookPath(hook.id), { token }),
    ];
    for (const response of writes) {
      expect(response.statusCode).toBe(403);
      expect(response.json().status.user_message).toContain(permissionSet);
    }
    expect(await h.db.snapshot()).toBe(before);
  });

  test.each(WRITE_PERMISSION_SETS)('%s can create, update and delete', async (permissionSet) => {
    const token = await h.token(permissionSet);
    const created = await h.call('POST', webhooksPath(), { token, body: validCreateBody() });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id;
    expect((await h.call('PUT', webhookPath(id), { token, body: validCreateBody({ name: 'y' }) })).statusCode).toBe(
      200,
    );
    expect((await h.call('DELETE', webhookPath(id), { token })).statusCode).toBe(200);
  });
});

describe('token lifecycle and plans', () => {
  test('a revoked token is refused with 401', async () => {
    const { token, record } = await h.service.accounts.createToken({ accountId: 1, permissionSet: 'Admin' });
    expect((await h.call('GET', webhooksPath(), { token })).statusCode).toBe(200);
    expect(await h.service.accounts.revokeToken(record.id)).toBe(true);
    const response = await h.call('GET', webhooksPath(), { token });
    expect(response.statusCode).toBe(401);
    expect(response.json().status.user_message).toMatch(/revoked/);
  });

  test('an account on the developer plan cannot use webhooks, and is told why', async () => {
    await h.service.accounts.createAccount({ id: 3, plan: 'developer' });
    const { token } = await h.service.accounts.createToken({ accountId: 3, permissionSet: 'Account Admin' });
    const response = await h.call('GET', webhooksPath(3), { token });
    expect(response.statusCode).toBe(403);
    expect(response.json().status.user_message).toMatch(/Starter and Enterprise/);
  });

  test('the starter plan can use webhooks', async () => {
    await h.service.accounts.createAccount({ id: 4, plan: 'starter' });
    const { token } = await h.service.accounts.createToken({ accountId: 4, permissionSet: 'Developer' });
    expect((await h.call('POST', webhooksPath(4), { token, body: validCreateBody() })).statusCode).toBe(201);
  });
});

describe('webhook limit per account', () => {
  test('a create past JOBHOOKS_MAX_SUBSCRIPTIONS_PER_ACCOUNT is a 409 that creates nothing', async () => {
    const limited = await startHarness({ env: { JOBHOOKS_MAX_SUBSCRIPTIONS_PER_ACCOUNT: '2' } });
    try {
      await createWebhook(limited);
      await createWebhook(limited);
      const before = await limited.db.snapshot();
      const response = await limited.call('POST', webhooksPath(), { body: validCreateBody() });
      expect(response.statusCode).toBe(409);
      expect(response.json().status.user_message).toMatch(/2 webhooks/);
      expect(await limited.db.snapshot()).toBe(before);
    } finally {
      await limited.close();
    }
  });
});
