// A token revoked on one instance is refused by every instance of the cluster within the bound the operating guide
// states, also after an instance's LISTEN connection was cut. A suite of its own because it is timed: it runs after
// the others, one at a time (test/support/test-selection.js).
import { createSystemClock } from '../../service/src/core/clock';
import { createIdGenerator } from '../../service/src/core/ids';
import { cryptoRandomBytes } from '../../service/src/core/random';
import { createAccountService } from '../../service/src/accounts/account-service';
import { sqlOn, statusOf, withBootstrap } from '../support/cluster-instances';
import { createTestDatabase } from '../support/postgres';
import { type ServiceProcess, startServiceProcess, stopServiceProcesses } from '../support/service-process';
import { openTestStore } from '../support/stores';
import { waitFor } from '../support/wait';

let url: string;
beforeEach(async () => {
  url = await createTestDatabase();
});
afterEach(stopServiceProcesses);

const sql = (text: string) => sqlOn(url, text);

/** Makes a Read-Only token of account 1 and a function that revokes it, through a store of the test's own. */
async function revocableToken(): Promise<{ token: string; revoke(): Promise<void>; close(): Promise<void> }> {
  const opened = await openTestStore('postgres', url);
  const clock = createSystemClock();
  const accounts = createAccountService({
    store: opened.store,
    clock,
    ids: createIdGenerator(clock, cryptoRandomBytes),
    random: cryptoRandomBytes,
  });
  const made = await accounts.createToken({ accountId: 1, permissionSet: 'Read-Only' });
  return {
    token: made.token,
    revoke: async () => {
      expect(await accounts.revokeToken(made.record.id)).toBe(true);
    },
    close: opened.close,
  };
}

/** The bound docs/operating.md#postgresql-and-several-instances states for a revoke to reach every instance. */
const REVOKE_BOUND_MS = 1_000;

async function expectRefusedEverywhereWithinBound(instances: ServiceProcess[], token: string): Promise<void> {
  const revokedAt = Date.now();
  await waitFor(
    async () => (await Promise.all(instances.map((i) => statusOf(i.baseUrl, token)))).every((s) => s === 401),
    'every instance to refuse the revoked token',
    REVOKE_BOUND_MS,
  );
  expect(Date.now() - revokedAt).toBeLessThanOrEqual(REVOKE_BOUND_MS + 200);
}

test('a token revoked elsewhere is refused by every instance, also after its LISTEN connection was killed', async () => {
  const instances = [await startServiceProcess(withBootstrap(url)), await startServiceProcess(withBootstrap(url))];
  const first = await revocableToken();
  try {
    // Both instances have the token in memory now.
    for (const instance of instances) expect(await statusOf(instance.baseUrl, first.token)).toBe(200);
    await first.revoke();
    await expectRefusedEverywhereWithinBound(instances, first.token);
  } finally {
    await first.close();
  }

  const second = await revocableToken();
  try {
    for (const instance of instances) expect(await statusOf(instance.baseUrl, second.token)).toBe(200);
    const killed = await sql(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    expect(killed.length).toBeGreaterThanOrEqual(2);
    await second.revoke();
    await expectRefusedEverywhereWithinBound(instances, second.token);
    // The listeners came back: a third revoke is heard again.
    await waitFor(
      async () => (await sql(`SELECT 1 FROM pg_stat_activity WHERE query LIKE 'LISTEN%'`)).length >= 2,
      'both LISTEN connections back',
      10_000,
    );
  } finally {
    await second.close();
  }
}, 60_000);
