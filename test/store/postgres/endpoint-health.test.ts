// Endpoint health kept on the webhook's row for every instance (PostgreSQL): changes applied under the row's
// lock lose none of each other, a new endpoint starts unknown, and a claim passes over an open circuit and reads
// the others' health.
import { afterAnswer, type Answer, DEFAULT_HEALTH_RULES } from '../../../service/src/delivery/endpoint-health';
import { type EndpointHealth, UNKNOWN_ENDPOINT } from '../../../service/src/domain/endpoint-health';
import type { EndpointHealthStore, Store } from '../../../service/src/store/store';
import { useSuiteCluster } from '../../support/postgres';
import { REFUSAL, refuseRows } from '../../support/refused-rows';
import { openTestStore, type TestStore } from '../../support/stores';
import {
  accountWithWebhooks,
  attemptOf,
  candidatesAt,
  claimAll,
  countFailures,
  event,
  recordEvent,
  SECOND,
  T0,
} from '../contract/fixtures';

useSuiteCluster();

let opened: TestStore;
let store: Store;
let health: EndpointHealthStore;
beforeEach(async () => {
  opened = await openTestStore('postgres');
  store = opened.store;
  health = store.endpointHealth!;
  await accountWithWebhooks(store, 1, ['wh_a', 'wh_b']);
});
afterEach(async () => {
  await opened.close();
  expect(opened.backgroundErrors).toEqual([]);
});

const RULES = { ...DEFAULT_HEALTH_RULES, maxInFlight: 16 };
const sick = (now: number): Answer => ({ signal: 'sick', now, sentAt: now - 1, jitter: 0, manual: false });
const answer = (a: Answer) => (h: EndpointHealth) => afterAnswer(h, a, RULES);

test('changes from two instances at once are applied one after the other: none is lost', async () => {
  const other = await openTestStore('postgres', opened.location);
  try {
    const fromBoth = [health, other.store.endpointHealth!].flatMap((instance) =>
      Array.from({ length: 3 }, () => instance.change('wh_a', answer(sick(T0)))),
    );
    await Promise.all(fromBoth);
  } finally {
    await other.close();
  }
  const { endpointHealth } = (await store.webhooks.get(1, 'wh_a'))!;
  expect(endpointHealth).toMatchObject({ heard: true, sickInARow: 5, circuit: { state: 'open', since: T0 } });
  // The sixth arrived with the circuit open: it says nothing new.
  expect(await health.change('wh_gone', answer(sick(T0)))).toBeNull();
});

test("a change the database refuses fails its own caller only; another webhook's change of the same moment is written", async () => {
  await refuseRows(
    { dbPath: '', databaseUrl: opened.location },
    {
      table: 'webhooks',
      on: 'UPDATE',
      when: "NEW.id = 'wh_b' AND NEW.endpoint_sick_in_a_row <> OLD.endpoint_sick_in_a_row",
    },
  );
  const [a, b] = await Promise.allSettled([
    health.change('wh_a', answer(sick(T0))),
    health.change('wh_b', answer(sick(T0))),
  ]);
  expect(a).toMatchObject({ status: 'fulfilled', value: { sickInARow: 1 } });
  expect(b.status).toBe('rejected');
  expect(String((b as PromiseRejectedResult).reason)).toContain(REFUSAL);
  expect((await store.webhooks.get(1, 'wh_a'))!.endpointHealth).toMatchObject({ sickInARow: 1 });
  expect((await store.webhooks.get(1, 'wh_b'))!.endpointHealth).toMatchObject({ sickInARow: 0 });
});

test('an open circuit is read back as written and counted; a new client_url or a reactivation resets it', async () => {
  for (let i = 0; i < 5; i += 1) await health.change('wh_a', answer(sick(T0)));
  const until = T0 + 10 * SECOND;
  expect((await store.webhooks.get(1, 'wh_a'))!.endpointHealth!.circuit).toEqual({ state: 'open', since: T0, until });
  expect(await health.countNotClosed()).toBe(1);

  // A change that keeps the endpoint keeps what was learnt of it.
  await store.webhooks.update(1, 'wh_a', (current) => ({ ...current, name: 'renamed' }));
  expect((await store.webhooks.get(1, 'wh_a'))!.endpointHealth!.circuit.state).toBe('open');
  await store.webhooks.update(1, 'wh_a', (current) => ({ ...current, clientUrl: 'http://127.0.0.1:9/moved' }));
  expect((await store.webhooks.get(1, 'wh_a'))!.endpointHealth).toEqual(UNKNOWN_ENDPOINT);
  expect(await health.countNotClosed()).toBe(0);

  for (let i = 0; i < 5; i += 1) await health.change('wh_a', answer(sick(T0)));
  await store.webhooks.update(1, 'wh_a', (current) => ({ ...current, active: false }));
  expect((await store.webhooks.get(1, 'wh_a'))!.endpointHealth!.circuit.state).toBe('open');
  await store.webhooks.update(1, 'wh_a', (current) => ({ ...current, active: true }));
  expect((await store.webhooks.get(1, 'wh_a'))!.endpointHealth).toEqual(UNKNOWN_ENDPOINT);
});

test('a claim passes over a webhook whose circuit is open, and offers it with its health once the probe is due', async () => {
  await recordEvent(store, event(1, 'ev_1'));
  for (let i = 0; i < 5; i += 1) await health.change('wh_a', answer(sick(T0)));
  await health.change('wh_b', answer({ signal: 'healthy', now: T0, sentAt: T0 - 1, jitter: 0, manual: false }));

  const whileOpen = await candidatesAt(store, T0 + SECOND);
  expect(whileOpen.map((c) => c.webhookId)).toEqual(['wh_b']);
  expect(whileOpen[0]!.endpointHealth).toMatchObject({ heard: true, limit: 2, circuit: { state: 'closed' } });

  const probeDue = await candidatesAt(store, T0 + 10 * SECOND);
  const forA = probeDue.find((c) => c.webhookId === 'wh_a');
  expect(forA?.endpointHealth?.circuit).toEqual({ state: 'open', since: T0, until: T0 + 10 * SECOND });
});

test("an answer that changed nothing its instance knew is applied to the row with the attempt's result", async () => {
  await recordEvent(store, event(1, 'ev_1'));
  const claimed = await claimAll(store, T0);
  const forA = claimed.find((c) => c.webhookId === 'wh_a')!;
  const forB = claimed.find((c) => c.webhookId === 'wh_b')!;
  // Another instance's answers meanwhile: two sick ones.
  await health.change('wh_a', answer(sick(T0)));
  await health.change('wh_a', answer(sick(T0)));
  const healthy = answer({ signal: 'healthy', now: T0 + 2, sentAt: T0 + 1, jitter: 0, manual: false });
  const resultA = attemptOf(forA, { requestedAt: T0 + 1, delivery: { state: 'succeeded' } });
  const resultB = attemptOf(forB, { requestedAt: T0 + 1, delivery: { state: 'succeeded' } });
  await store.deliveries.recordAttempts([{ ...resultA, endpointHealthChange: healthy }, resultB], countFailures);
  // The 2xx ends the sick answers in a row, as it would have in one process.
  expect((await store.webhooks.get(1, 'wh_a'))!.endpointHealth).toMatchObject({ sickInARow: 0, limit: 2 });
  // A result in the same batch that carries no change leaves its webhook's health alone.
  expect((await store.webhooks.get(1, 'wh_b'))!.endpointHealth).toEqual(UNKNOWN_ENDPOINT);
});
