// Endpoint health as each backend's store keeps it (on the webhook's row on PostgreSQL, beside the database in the
// process that owns the SQLite file): read back as written, reset for a new endpoint, passed over by a claim while
// the circuit is open, changed with an attempt's result, and never changed through what a caller was handed.
import { afterAnswer, type Answer, DEFAULT_HEALTH_RULES } from '../../../service/src/delivery/endpoint-health';
import { type EndpointHealth, UNKNOWN_ENDPOINT } from '../../../service/src/domain/endpoint-health';
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
  useStore,
} from './fixtures';

const store = useStore();
const health = () => store().endpointHealth;
beforeEach(async () => {
  await accountWithWebhooks(store(), 1, ['wsu_a', 'wsu_b']);
});

const RULES = { ...DEFAULT_HEALTH_RULES, maxInFlight: 16 };
const sick = (now: number): Answer => ({ signal: 'sick', now, sentAt: now - 1, jitter: 0, manual: false });
const answer = (a: Answer) => (h: EndpointHealth) => afterAnswer(h, a, RULES);

test('an open circuit is read back as written and counted; a new client_url or a reactivation resets it', async () => {
  for (let i = 0; i < 5; i += 1) await health().change('wsu_a', answer(sick(T0)));
  const until = T0 + 10 * SECOND;
  expect((await store().webhooks.get(1, 'wsu_a'))!.endpointHealth.circuit).toEqual({ state: 'open', since: T0, until });
  expect(await health().countNotClosed()).toBe(1);

  // A change that keeps the endpoint keeps what was learnt of it.
  await store().webhooks.update(1, 'wsu_a', (current) => ({ ...current, name: 'renamed' }));
  expect((await store().webhooks.get(1, 'wsu_a'))!.endpointHealth.circuit.state).toBe('open');
  await store().webhooks.update(1, 'wsu_a', (current) => ({ ...current, clientUrl: 'http://127.0.0.1:9/moved' }));
  expect((await store().webhooks.get(1, 'wsu_a'))!.endpointHealth).toEqual(UNKNOWN_ENDPOINT);
  expect(await health().countNotClosed()).toBe(0);

  for (let i = 0; i < 5; i += 1) await health().change('wsu_a', answer(sick(T0)));
  await store().webhooks.update(1, 'wsu_a', (current) => ({ ...current, active: false }));
  expect((await store().webhooks.get(1, 'wsu_a'))!.endpointHealth.circuit.state).toBe('open');
  await store().webhooks.update(1, 'wsu_a', (current) => ({ ...current, active: true }));
  expect((await store().webhooks.get(1, 'wsu_a'))!.endpointHealth).toEqual(UNKNOWN_ENDPOINT);
});

test('a claim passes over a webhook whose circuit is open, and offers it with its health once the probe is due', async () => {
  await recordEvent(store(), event(1, 'wev_1'));
  for (let i = 0; i < 5; i += 1) await health().change('wsu_a', answer(sick(T0)));
  await health().change('wsu_b', answer({ signal: 'healthy', now: T0, sentAt: T0 - 1, jitter: 0, manual: false }));

  const whileOpen = await candidatesAt(store(), T0 + SECOND);
  expect(whileOpen.map((c) => c.webhookId)).toEqual(['wsu_b']);
  expect(whileOpen[0]!.endpointHealth).toMatchObject({ heard: true, limit: 2, circuit: { state: 'closed' } });

  const probeDue = await candidatesAt(store(), T0 + 10 * SECOND);
  const forA = probeDue.find((c) => c.webhookId === 'wsu_a');
  expect(forA?.endpointHealth.circuit).toEqual({ state: 'open', since: T0, until: T0 + 10 * SECOND });
});

test("an answer that changed nothing its instance knew is applied with the attempt's result, in order", async () => {
  await recordEvent(store(), event(1, 'wev_1'));
  const claimed = await claimAll(store(), T0);
  const forA = claimed.find((c) => c.webhookId === 'wsu_a')!;
  const forB = claimed.find((c) => c.webhookId === 'wsu_b')!;
  // Another instance's answers meanwhile: two sick ones.
  await health().change('wsu_a', answer(sick(T0)));
  await health().change('wsu_a', answer(sick(T0)));
  const healthy = answer({ signal: 'healthy', now: T0 + 2, sentAt: T0 + 1, jitter: 0, manual: false });
  const resultA = attemptOf(forA, { requestedAt: T0 + 1, delivery: { state: 'succeeded' } });
  const resultB = attemptOf(forB, { requestedAt: T0 + 1, delivery: { state: 'succeeded' } });
  await store().deliveries.recordAttempts([{ ...resultA, endpointHealthChange: healthy }, resultB], countFailures);
  // The 2xx ends the sick answers in a row, as it would have in one process.
  expect((await store().webhooks.get(1, 'wsu_a'))!.endpointHealth).toMatchObject({ sickInARow: 0, limit: 2 });
  // A result in the same batch that carries no change leaves its webhook's health alone.
  expect((await store().webhooks.get(1, 'wsu_b'))!.endpointHealth).toEqual(UNKNOWN_ENDPOINT);
});

test('each change of the health is a new revision, a reset and a change with a result too, and a claim offers the revision it read', async () => {
  await recordEvent(store(), event(1, 'wev_1'));
  const first = await health().change('wsu_a', answer(sick(T0)));
  const second = await health().change('wsu_a', answer(sick(T0)));
  expect(second!.health).toMatchObject({ heard: true, sickInARow: 2 });
  expect(second!.revision).toBeGreaterThan(first!.revision);
  const offeredA = async () => (await candidatesAt(store(), T0 + SECOND)).find((c) => c.webhookId === 'wsu_a')!;
  expect(await offeredA()).toMatchObject({ endpointHealth: second!.health, endpointHealthRevision: second!.revision });

  const moved = await store().webhooks.update(1, 'wsu_a', (current) => ({
    ...current,
    clientUrl: 'http://127.0.0.1:9/moved',
  }));
  const afterReset = await offeredA();
  expect(afterReset.endpointHealth).toEqual(UNKNOWN_ENDPOINT);
  expect(afterReset.endpointHealthRevision).toBeGreaterThan(second!.revision);
  // The update hands back the reset with its revision, for the instance that made it (EndpointHealthRegistry.renewed).
  expect(moved).toMatchObject({
    endpointHealth: UNKNOWN_ENDPOINT,
    endpointHealthRevision: afterReset.endpointHealthRevision,
  });

  const [forA] = (await claimAll(store(), T0 + SECOND)).filter((c) => c.webhookId === 'wsu_a');
  const result = attemptOf(forA!, { requestedAt: T0 + 2 * SECOND, delivery: { state: 'failed' } });
  await store().deliveries.recordAttempts(
    [{ ...result, endpointHealthChange: answer(sick(T0 + 2 * SECOND)) }],
    countFailures,
  );
  const third = await health().change('wsu_a', answer(sick(T0 + 3 * SECOND)));
  expect(third!.health.sickInARow).toBe(2);
  expect(third!.revision).toBeGreaterThan(afterReset.endpointHealthRevision + 1);
});

test('what a caller was handed cannot change the health the store keeps', async () => {
  await recordEvent(store(), event(1, 'wev_1'));
  for (let i = 0; i < 5; i += 1) await health().change('wsu_a', answer(sick(T0)));
  const handed = (await store().webhooks.get(1, 'wsu_a'))!.endpointHealth as { limit: number; circuit: object };
  try {
    handed.limit = 99;
    handed.circuit = { state: 'closed' };
  } catch {
    // A frozen record refuses the write in strict mode: as good.
  }
  expect((await store().webhooks.get(1, 'wsu_a'))!.endpointHealth).toMatchObject({
    limit: 1,
    circuit: { state: 'open', since: T0 },
  });
  const candidate = (await candidatesAt(store(), T0 + 10 * SECOND)).find((c) => c.webhookId === 'wsu_a');
  expect(candidate?.endpointHealth).toMatchObject({ limit: 1, circuit: { state: 'open' } });
});
