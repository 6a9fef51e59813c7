// The endpoint health rules on a fake clock: capacity that grows with healthy answers and halves with sick
// ones, the circuit that opens after sick answers in a row, its probe, and what counts as sick.
import {
  afterAnswer,
  allowedInFlight,
  type Answer,
  circuitAt,
  DEFAULT_HEALTH_RULES,
  EndpointHealthRegistry,
  type EndpointHealth,
  healthSignalOf,
  standingOf,
  UNKNOWN_ENDPOINT,
} from '../../service/src/delivery/endpoint-health';
import { createManualClock } from '../../service/src/core/clock';
import { createDispatchStages } from '../../service/src/delivery/dispatch-stages';
import type { DueCandidate } from '../../service/src/domain/delivery';
import type { ClaimWindow, Store } from '../../service/src/store/store';

const RULES = { ...DEFAULT_HEALTH_RULES, maxInFlight: 16 };
const SECOND = 1_000_000;

/** An answer at `now` to a request sent just before it. */
const healthy = (now: number, manual = false): Answer => ({
  signal: 'healthy',
  now,
  sentAt: now - 1,
  jitter: 0,
  manual,
});
const sick = (now: number, manual = false): Answer => ({ signal: 'sick', now, sentAt: now - 1, jitter: 0, manual });

function answered(answers: Answer[], from: EndpointHealth = UNKNOWN_ENDPOINT): EndpointHealth {
  return answers.reduce((health, answer) => afterAnswer(health, answer, RULES), from);
}

test('timeouts, failed connections and 5xx are sick; 2xx, 3xx and 4xx, however slow, are healthy', () => {
  expect(healthSignalOf({ kind: 'no_response', error: 'No complete response within 10 s', durationMs: 10_000 })).toBe(
    'sick',
  );
  expect(healthSignalOf({ kind: 'no_response', error: 'Connection refused', durationMs: 1 })).toBe('sick');
  for (const status of [500, 502, 503]) {
    expect(healthSignalOf({ kind: 'response', status, durationMs: 5, bodyExcerpt: '', retryAfter: null })).toBe('sick');
  }
  expect(healthSignalOf({ kind: 'response', status: 429, durationMs: 5, bodyExcerpt: '', retryAfter: '5' })).toBe(
    'slow-down',
  );
  for (const status of [200, 204, 301, 400, 404, 410]) {
    expect(healthSignalOf({ kind: 'response', status, durationMs: 3_000, bodyExcerpt: '', retryAfter: null })).toBe(
      'healthy',
    );
  }
});

test('an unknown endpoint gets one request at a time, and one more with each healthy answer, up to the limit', () => {
  expect(allowedInFlight(UNKNOWN_ENDPOINT, 0)).toBe(1);
  expect(allowedInFlight(answered([healthy(1)]), 1)).toBe(2);
  expect(allowedInFlight(answered(Array.from({ length: 40 }, (_, i) => healthy(i))), 40)).toBe(16);
});

test('each sick answer halves the capacity, never below one, and a healthy one in between resets the count', () => {
  const full = answered(Array.from({ length: 15 }, (_, i) => healthy(i)));
  expect(full.limit).toBe(16);
  const halved = answered([sick(20), sick(21)], full);
  expect(halved).toMatchObject({ limit: 4, sickInARow: 2, circuit: { state: 'closed' } });
  const recovered = answered([healthy(22)], halved);
  expect(recovered).toMatchObject({ limit: 5, sickInARow: 0 });
  expect(answered([sick(23), sick(24), sick(25), sick(26)], recovered)).toMatchObject({
    limit: 1,
    circuit: { state: 'closed' },
  });
});

test('five sick answers in a row open the circuit for 10 s: nothing is sent, then one probe', () => {
  const opened = answered([sick(0), sick(1), sick(2), sick(3), sick(4 * SECOND)]);
  expect(opened.circuit).toEqual({ state: 'open', since: 4 * SECOND, until: 14 * SECOND });
  expect(allowedInFlight(opened, 14 * SECOND - 1)).toBe(0);
  expect(circuitAt(opened, 14 * SECOND)).toEqual({ state: 'probing', since: 4 * SECOND });
  expect(allowedInFlight(opened, 14 * SECOND)).toBe(1);
});

test('a failed probe opens the circuit again for twice as long, up to 5 minutes', () => {
  let health = answered([sick(0), sick(0), sick(0), sick(0), sick(0)]);
  const periods: number[] = [];
  let now = 0;
  for (let probe = 0; probe < 8; probe += 1) {
    const circuit = health.circuit as { state: 'open'; until: number };
    periods.push((circuit.until - now) / SECOND);
    now = circuit.until;
    health = afterAnswer(health, sick(now), RULES);
  }
  expect(periods).toEqual([10, 20, 40, 80, 160, 300, 300, 300]);
});

test('a healthy probe closes the circuit at full speed', () => {
  const opened = answered([sick(0), sick(0), sick(0), sick(0), sick(0)]);
  const closed = afterAnswer(opened, healthy(11 * SECOND), RULES);
  expect(closed).toEqual({ heard: true, limit: 16, sickInARow: 0, opens: 0, circuit: { state: 'closed' } });
});

test('a request of a person never opens the circuit, and its healthy answer closes it at once', () => {
  const failing = answered([sick(0), sick(0), sick(0), sick(0)]);
  expect(afterAnswer(failing, sick(1, true), RULES)).toBe(failing);
  const opened = answered([sick(0), sick(0), sick(0), sick(0), sick(0)]);
  expect(afterAnswer(opened, healthy(SECOND, true), RULES).circuit).toEqual({ state: 'closed' });
});

test('a sick answer to a request sent before the circuit opened changes nothing', () => {
  const opened = answered([sick(0), sick(0), sick(0), sick(0), sick(0)]);
  expect(afterAnswer(opened, sick(SECOND), RULES)).toBe(opened);
});

test('an open period is stretched by up to a fifth, by the jitter given', () => {
  const opened = [sick(0), sick(0), sick(0), sick(0)].reduce((h, a) => afterAnswer(h, a, RULES), UNKNOWN_ENDPOINT);
  const stretched = afterAnswer(opened, { signal: 'sick', now: 0, sentAt: 0, jitter: 0.5, manual: false }, RULES);
  expect(stretched.circuit).toEqual({ state: 'open', since: 0, until: 11 * SECOND });
});

test('an endpoint stands unknown until it answers, proven after a healthy answer, sick after a sick one', () => {
  expect(standingOf(UNKNOWN_ENDPOINT)).toBe('unknown');
  expect(standingOf(answered([healthy(0)]))).toBe('proven');
  expect(standingOf(answered([healthy(0), sick(1)]))).toBe('sick');
  expect(standingOf(answered([sick(0), sick(0), sick(0), sick(0), sick(0), healthy(SECOND)]))).toBe('proven');
});

test('the registry keeps what the store keeps, and counts the circuits the store holds not closed', async () => {
  const store = sharedStore({ wh_dead: UNKNOWN_ENDPOINT, wh_fine: UNKNOWN_ENDPOINT });
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  for (let i = 0; i < 5; i += 1) await registry.record('wh_dead', sick(0));
  await registry.record('wh_fine', healthy(0));
  expect(registry.allowedInFlight('wh_dead', SECOND)).toBe(0);
  expect(await registry.notClosed()).toBe(1);
  expect(registry.allowedInFlight('wh_fine', SECOND)).toBe(2);
  expect(registry.allowedInFlight('wh_new', SECOND)).toBe(1);
  expect(circuitAt(registry.of('wh_dead'), 10 * SECOND)).toEqual({ state: 'probing', since: 0 });
  expect(registry.of('wh_dead')).toEqual(store.rows.get('wh_dead'));
  await registry.record('wh_dead', healthy(10 * SECOND));
  expect(await registry.notClosed()).toBe(0);
});

test('a sick answer to a request sent before the circuit opened is not taken for a failed probe', () => {
  const opened = answered([sick(0), sick(0), sick(0), sick(0), sick(SECOND)]);
  // The open period is over, and an attempt sent at 0.5 s (before the circuit opened at 1 s) times out now.
  const late: Answer = { signal: 'sick', now: 12 * SECOND, sentAt: SECOND / 2, jitter: 0, manual: false };
  expect(afterAnswer(opened, late, RULES)).toBe(opened);
  // The probe itself, sent after the circuit opened, counts.
  expect(afterAnswer(opened, sick(12 * SECOND), RULES).circuit).toMatchObject({ state: 'open', since: 12 * SECOND });
});

test('a 429 halves the capacity but is not sick: it neither opens the circuit nor counts toward it', () => {
  const full = answered(Array.from({ length: 15 }, (_, i) => healthy(i)));
  const slowDown: Answer = { signal: 'slow-down', now: 20, sentAt: 19, jitter: 0, manual: false };
  const after = Array.from({ length: 6 }).reduce<EndpointHealth>((h) => afterAnswer(h, slowDown, RULES), full);
  expect(after).toMatchObject({ limit: 1, sickInARow: 0, circuit: { state: 'closed' } });
  expect(standingOf(after)).toBe('proven');
});

test('a forgotten endpoint is unknown again, and the registry keeps a bounded number by forgetting the oldest', async () => {
  const store = sharedStore({ wh_dead: UNKNOWN_ENDPOINT });
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  for (let i = 0; i < 5; i += 1) await registry.record('wh_dead', sick(0));
  registry.forget('wh_dead');
  expect(registry.of('wh_dead')).toBe(UNKNOWN_ENDPOINT);

  const crowded = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  crowded.adopt('wh_first', answered([sick(0)]), 1);
  for (let i = 1; i < 100_000; i += 1) crowded.adopt(`wh_${i}`, answered([healthy(0)]), 1);
  expect(crowded.of('wh_first').sickInARow).toBe(1);
  crowded.adopt('wh_one_more', answered([healthy(0)]), 1);
  expect(crowded.of('wh_first')).toBe(UNKNOWN_ENDPOINT);
  expect(crowded.of('wh_1').heard).toBe(true);
});

/** The rows of sharedStore: each set of one, by the registry's writes or by "another instance", is a revision. */
class RevisedRows extends Map<string, EndpointHealth> {
  readonly revisions = new Map<string, number>();
  override set(webhookId: string, health: EndpointHealth): this {
    // Map's constructor sets its entries before this class's fields exist: it is given none.
    this.revisions?.set(webhookId, (this.revisions.get(webhookId) ?? 0) + 1);
    return super.set(webhookId, health);
  }
  /** What a claim reads of the row: its health and revision, as adopt takes them. */
  read(webhookId: string): [EndpointHealth, number] {
    return [this.get(webhookId)!, this.revisions.get(webhookId)!];
  }
}

/** What several instances keep on the webhook rows (PostgreSQL), in memory: it counts its writes. */
function sharedStore(initial: Record<string, EndpointHealth> = {}) {
  const rows = new RevisedRows();
  for (const [webhookId, health] of Object.entries(initial)) rows.set(webhookId, health);
  const store = {
    rows,
    writes: 0,
    fail: null as Error | null,
    change: async (webhookId: string, change: (health: EndpointHealth) => EndpointHealth) => {
      if (store.fail !== null) throw store.fail;
      const row = rows.get(webhookId);
      if (row === undefined) return null;
      store.writes += 1;
      rows.set(webhookId, change(row));
      const [health, revision] = rows.read(webhookId);
      return { health, revision };
    },
    countNotClosed: async () => [...rows.values()].filter((h) => h.circuit.state !== 'closed').length,
  };
  return store;
}

test('through the store, an answer is applied to what it holds, and one that changes nothing goes with the result', async () => {
  const store = sharedStore({ wh_a: UNKNOWN_ENDPOINT });
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  expect(await registry.record('wh_a', healthy(0))).toBeNull();
  expect(store.writes).toBe(1);
  expect(registry.of('wh_a')).toEqual(store.rows.get('wh_a'));

  // Another instance opened the circuit: this instance's next answer applies to that, not to what it knew.
  const opened = answered([sick(1), sick(1), sick(1), sick(1), sick(1)]);
  store.rows.set('wh_a', opened);
  await registry.record('wh_a', healthy(2));
  expect(store.rows.get('wh_a')).toMatchObject({ circuit: { state: 'closed' }, limit: RULES.maxInFlight });
  expect(registry.of('wh_a')).toEqual(store.rows.get('wh_a'));

  // At full speed and closed, a healthy answer changes nothing here: it is not written now, but handed back to
  // go with the attempt's result, where it is applied to the row as it stands then.
  const writes = store.writes;
  const left = await registry.record('wh_a', healthy(3));
  expect(store.writes).toBe(writes);
  const sickElsewhere = answered([sick(3), sick(3)], store.rows.get('wh_a'));
  expect(left!(sickElsewhere)).toMatchObject({ sickInARow: 0, limit: sickElsewhere.limit + 1 });
  expect(await registry.notClosed()).toBe(0);
  store.rows.set('wh_b', opened);
  expect(await registry.notClosed()).toBe(1);

  // A person's test send is written even when this instance saw nothing to change: its 2xx closes the circuit
  // another instance opened meanwhile.
  store.rows.set('wh_a', opened);
  await registry.record('wh_a', healthy(4, true));
  expect(store.writes).toBe(writes + 1);
  expect(store.rows.get('wh_a')!.circuit).toEqual({ state: 'closed' });
});

test("through the store, a claim's read replaces what was known, and open circuits are left to the claim query", async () => {
  const store = sharedStore();
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  registry.adopt('wh_a', answered([sick(0), sick(0), sick(0), sick(0), sick(0)]), 5);
  expect(registry.allowedInFlight('wh_a', SECOND)).toBe(0);
  // A circuit another instance closes is open here only until the next claim reads the store.
  registry.adopt('wh_a', answered([healthy(2 * SECOND)]), 6);
  expect(registry.allowedInFlight('wh_a', 3 * SECOND)).toBe(2);
});

test('through the store, a failed write is reported and handed back with the result; a deleted webhook is forgotten', async () => {
  const store = sharedStore({ wh_a: UNKNOWN_ENDPOINT });
  const errors: unknown[] = [];
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: (error) => errors.push(error) });
  store.fail = new Error('connection lost');
  // The change is handed back, to be applied with the attempt's result if the database is back by then.
  const left = await registry.record('wh_a', sick(0));
  expect(errors).toEqual([store.fail]);
  expect(registry.of('wh_a')).toMatchObject({ heard: true, sickInARow: 1 });
  expect(left!(UNKNOWN_ENDPOINT)).toEqual(registry.of('wh_a'));

  store.fail = null;
  registry.adopt('wh_gone', answered([healthy(0)]), 1);
  await registry.record('wh_gone', sick(1));
  expect(registry.of('wh_gone')).toBe(UNKNOWN_ENDPOINT);
});

test("a healthy answer that came in before the circuit opened, applied late, does not close it; a person's does", () => {
  const opened = answered([sick(2), sick(2), sick(2), sick(2), sick(2)]);
  expect(afterAnswer(opened, healthy(1), RULES)).toBe(opened);
  expect(afterAnswer(opened, healthy(1, true), RULES).circuit).toEqual({ state: 'closed' });
  expect(afterAnswer(opened, healthy(3), RULES).circuit).toEqual({ state: 'closed' });
});

test("through the store, this instance's answers reach the row in the order they came in", async () => {
  const full = answered(Array.from({ length: 20 }, (_, i) => healthy(i)));
  const store = sharedStore({ wh_a: full });
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  registry.adopt('wh_a', ...store.rows.read('wh_a'));
  // Two sick answers on the row from elsewhere, then: a 2xx here (deferred), and a 5xx here (written at once).
  store.rows.set('wh_a', answered([sick(30), sick(30)], full));
  const deferred = await registry.record('wh_a', healthy(31));
  expect(await registry.record('wh_a', sick(32))).toBeNull();
  // The 2xx went first, taken along by the write: one sick answer in a row, not three.
  expect(store.rows.get('wh_a')).toMatchObject({ sickInARow: 1 });
  // Its attempt's result comes later and finds it applied already.
  const row = store.rows.get('wh_a')!;
  expect(deferred!(row)).toBe(row);

  // Applied by its result first, a deferred change is not taken along again.
  store.rows.set('wh_a', full);
  registry.adopt('wh_a', ...store.rows.read('wh_a'));
  const second = await registry.record('wh_a', healthy(40));
  second!(full);
  store.rows.set('wh_a', answered([sick(40), sick(40)], full));
  await registry.record('wh_a', sick(41));
  expect(store.rows.get('wh_a')).toMatchObject({ sickInARow: 3 });
});

test("a claim's read older than what this instance wrote meanwhile does not undo it; a newer one is taken", async () => {
  const store = sharedStore({ wh_a: UNKNOWN_ENDPOINT });
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  const snapshot = store.rows.read('wh_a');
  // The endpoint answers 2xx while a claim's snapshot is read: its capacity grows to two, here and on the row.
  await registry.record('wh_a', healthy(1));
  registry.adopt('wh_a', ...snapshot);
  expect(registry.allowedInFlight('wh_a', 2)).toBe(2);
  // Another instance halves it after that write: the next read says so, and is taken.
  store.rows.set('wh_a', answered([sick(3)], store.rows.get('wh_a')));
  registry.adopt('wh_a', ...store.rows.read('wh_a'));
  expect(registry.of('wh_a')).toEqual(store.rows.get('wh_a'));
  expect(registry.allowedInFlight('wh_a', 4)).toBe(1);
  // Whatever comes back later with a lower revision (a claim's, or a write's) does not undo what is known.
  const known = registry.of('wh_a');
  registry.adopt('wh_a', answered([healthy(5)]), 1);
  expect(registry.of('wh_a')).toBe(known);
});

test('a claim goes by the capacity an answer written during its read gave, not by the older health it read', async () => {
  const rows = sharedStore({ wh_a: UNKNOWN_ENDPOINT });
  const health = new EndpointHealthRegistry(RULES, () => 0, { store: rows, onError: () => undefined });
  const [snapshotHealth, snapshotRevision] = rows.rows.read('wh_a');
  const candidate = (id: string): DueCandidate => ({
    id,
    webhookId: 'wh_a',
    accountId: 1,
    dueAt: 0,
    inFlightElsewhere: 0,
    endpointHealth: snapshotHealth,
    endpointHealthRevision: snapshotRevision,
    sendRate: null,
  });
  let chosen: DueCandidate[] = [];
  const store = {
    deliveries: {
      // The snapshot holds the endpoint as not heard from; its first 2xx is written before the claim chooses.
      claimDue: async (
        _request: unknown,
        choose: (candidates: DueCandidate[], window: ClaimWindow) => DueCandidate[],
      ) => {
        await health.record('wh_a', healthy(1));
        chosen = choose([candidate('d1'), candidate('d2'), candidate('d3')], { full: false });
        return [];
      },
    },
  } as unknown as Store;
  const stages = createDispatchStages({
    store,
    clock: createManualClock(),
    random: (size) => Buffer.alloc(size),
    secretBox: { seal: (text) => text, open: (text) => text },
    owner: 'test',
    leaseMicros: 60 * SECOND,
    retryDelaysSeconds: [1],
    health,
    onError: (error) => {
      throw error;
    },
  });
  await stages.claim(
    {
      now: 0,
      total: 16,
      unprovenTotal: 14,
      maxPerWebhook: 16,
      allowed: (webhookId) => health.allowedInFlight(webhookId, 0),
      standing: (webhookId) => health.standing(webhookId),
      inFlight: new Map(),
      inFlightByAccount: new Map(),
    },
    [],
  );
  expect(chosen.map((c) => c.id)).toEqual(['d1', 'd2']);
});

test('a new endpoint starts from the reset the store made: reads and deferred answers of the old one are dropped', async () => {
  const full = answered(Array.from({ length: 20 }, (_, i) => healthy(i)));
  const store = sharedStore({ wh_a: full });
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  registry.adopt('wh_a', ...store.rows.read('wh_a'));
  const staleRead = store.rows.read('wh_a');
  const deferred = await registry.record('wh_a', healthy(30));
  // The URL changes: the store resets the health, and the update hands back the reset and its revision.
  store.rows.set('wh_a', UNKNOWN_ENDPOINT);
  registry.renewed('wh_a', ...store.rows.read('wh_a'), 31);
  // A claim that read the row before the reset comes back now: the old endpoint's capacity does not return.
  registry.adopt('wh_a', ...staleRead);
  expect(registry.of('wh_a')).toBe(UNKNOWN_ENDPOINT);
  expect(registry.allowedInFlight('wh_a', 31)).toBe(1);
  // The old endpoint's 2xx that waited for its result is not taken along by the new endpoint's first write.
  await registry.record('wh_a', sick(32));
  expect(store.rows.get('wh_a')).toMatchObject({ heard: true, sickInARow: 1, limit: 1 });
  expect(deferred).not.toBeNull();
});

test('answers to requests sent before the webhook was moved teach nothing about its new endpoint', async () => {
  const store = sharedStore({ wh_a: UNKNOWN_ENDPOINT });
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  registry.renewed('wh_a', ...store.rows.read('wh_a'), 100);
  // Five timeouts of requests that went to the former URL before the move (sentAt 99): no circuit opens.
  for (let i = 0; i < 5; i += 1)
    expect(
      await registry.record('wh_a', { signal: 'sick', now: 101 + i, sentAt: 99, jitter: 0, manual: false }),
    ).toBeNull();
  expect(store.rows.get('wh_a')).toEqual(UNKNOWN_ENDPOINT);
  expect(registry.of('wh_a')).toBe(UNKNOWN_ENDPOINT);
  // A request sent after the move is the new endpoint's.
  await registry.record('wh_a', { signal: 'sick', now: 110, sentAt: 105, jitter: 0, manual: false });
  expect(store.rows.get('wh_a')).toMatchObject({ heard: true, sickInARow: 1 });
});

test('a failed write is applied to the newest health known when it fails, and the next read of the row puts the record back', async () => {
  const store = sharedStore({ wh_a: answered([healthy(0), healthy(0), healthy(0)]) });
  const registry = new EndpointHealthRegistry(RULES, () => 0, { store, onError: () => undefined });
  registry.adopt('wh_a', ...store.rows.read('wh_a'));
  expect(registry.allowedInFlight('wh_a', 1)).toBe(4);
  // The write waits on the database; meanwhile a claim reads another instance's two sick answers (capacity 1).
  let fail: (error: Error) => void = () => undefined;
  store.change = () =>
    new Promise((_resolve, reject) => {
      fail = reject;
    });
  const recorded = registry.record('wh_a', sick(2));
  store.rows.set('wh_a', answered([sick(1), sick(1)], store.rows.get('wh_a')));
  registry.adopt('wh_a', ...store.rows.read('wh_a'));
  fail(new Error('connection lost'));
  await recorded;
  // Three sick answers in a row at capacity one, not the capacity of two that the health before the read gives.
  expect(registry.of('wh_a')).toMatchObject({ sickInARow: 3, limit: 1 });
  // The row never got this answer: the next read, of the same revision, is what the store keeps.
  registry.adopt('wh_a', ...store.rows.read('wh_a'));
  expect(registry.of('wh_a')).toEqual(store.rows.get('wh_a'));
});
