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
  health = store.endpointHealth;
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
    const fromBoth = [health, other.store.endpointHealth].flatMap((instance) =>
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
  expect(a).toMatchObject({ status: 'fulfilled', value: { health: { sickInARow: 1 } } });
  expect(b.status).toBe('rejected');
  expect(String((b as PromiseRejectedResult).reason)).toContain(REFUSAL);
  expect((await store.webhooks.get(1, 'wh_a'))!.endpointHealth).toMatchObject({ sickInARow: 1 });
  expect((await store.webhooks.get(1, 'wh_b'))!.endpointHealth).toMatchObject({ sickInARow: 0 });
});
