// Claiming due deliveries from SQLite: each webhook's oldest due ones, never a webhook without room, from an
// index rather than a scan of the backlog.
import { chooseClaims, type ClaimRoom } from '../../../service/src/delivery/claim-choice';
import type { SqliteDatabase } from '../../../service/src/store/sqlite/database';
import { CLAIM_QUERIES, createDeliveriesStore } from '../../../service/src/store/sqlite/deliveries';
import { createInProcessEndpointHealth } from '../../../service/src/store/sqlite/endpoint-health';
import type { ClaimRequest } from '../../../service/src/store/store';
import { useTempDatabase } from '../../support/temp-database';

const temp = useTempDatabase('claims');
let db: SqliteDatabase;
beforeEach(() => {
  db = temp.db;
  db.prepare(
    "INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (1, 'act_1', 'A', 'enterprise', 0)",
  ).run();
  db.prepare(
    "INSERT INTO events (id, account_id, event_type, run_id, created_at) VALUES ('wev_1', 1, 'job.run.completed', '1', 0)",
  ).run();
});

function addWebhook(id: string): void {
  db.prepare(
    `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active, sealed_secret, created_at, updated_at)
     VALUES (?, 1, ?, '', 'http://127.0.0.1:9/', '["job.run.completed"]', '[]', 1, 'v1:x', 0, 0)`,
  ).run(id, id);
}

/** `count` deliveries to `webhook`, due at `dueAt`, `dueAt + 1`, ... */
function addDue(webhook: string, count: number, dueAt: number): void {
  const insert = db.prepare(
    `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, next_attempt_at, created_at, updated_at)
     VALUES (?, 'wev_1', ?, 'pending', x'7b7d', ?, 0, 0)`,
  );
  db.transaction(() => {
    for (let i = 0; i < count; i += 1) insert.run(`${webhook}_${dueAt + i}`, webhook, dueAt + i);
  })();
}

const NOW = 1_000_000;
const request = (overrides: Partial<ClaimRequest> = {}): ClaimRequest => ({
  owner: 'test',
  now: NOW,
  leaseUntil: NOW + 60_000_000,
  perWebhook: 16,
  excludeWebhookIds: [],
  ...overrides,
});
const room = (total: number, inFlight: Array<[string, number]> = []): ClaimRoom => ({
  now: NOW,
  total,
  unprovenTotal: total,
  maxPerWebhook: 16,
  allowed: () => 16,
  standing: () => 'proven',
  inFlight: new Map(inFlight),
  inFlightByAccount: new Map(),
});

/** Parameters for each claim statement; the type makes a new statement need its entry here. */
const CLAIM_PARAMETERS: Record<keyof typeof CLAIM_QUERIES, unknown[]> = {
  nextPendingWebhook: ['wsu_a'],
  dueOfWebhook: ['wsu_a', NOW, 16],
};

test('every claim statement is answered from the pending-by-webhook index, never by scanning deliveries', () => {
  const plans = Object.entries(CLAIM_PARAMETERS).map(([name, parameters]) =>
    db
      .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${CLAIM_QUERIES[name as keyof typeof CLAIM_QUERIES]}`)
      .all(...parameters)
      .map((row) => row.detail)
      .join('; '),
  );
  expect(plans).toHaveLength(Object.keys(CLAIM_QUERIES).length);
  for (const plan of plans) {
    expect(plan).toMatch(/SEARCH (deliveries|d) USING (COVERING )?INDEX deliveries_pending_by_webhook/);
    expect(plan).not.toMatch(/SCAN/);
  }
});

test("a webhook with no room left does not hold back another's newer deliveries, however many it has due", async () => {
  addWebhook('wsu_busy');
  addWebhook('wsu_idle');
  addDue('wsu_busy', 5000, 1);
  addDue('wsu_idle', 3, 100_000);
  const store = createDeliveriesStore(db, createInProcessEndpointHealth(db));
  const current = room(256, [['wsu_busy', 16]]);
  const claimed = await store.claimDue(request({ excludeWebhookIds: ['wsu_busy'] }), (candidates) =>
    chooseClaims(candidates, current),
  );
  expect(claimed.map((delivery) => delivery.id)).toEqual(['wsu_idle_100000', 'wsu_idle_100001', 'wsu_idle_100002']);
});

test('oldest first within each webhook, webhooks in turn, at most perWebhook read from each, nothing not yet due, and a lease keeps it from the next claim', async () => {
  addWebhook('wsu_a');
  addWebhook('wsu_b');
  addDue('wsu_a', 20, 10);
  addDue('wsu_b', 2, 15);
  addDue('wsu_b', 1, NOW + 1);
  const store = createDeliveriesStore(db, createInProcessEndpointHealth(db));
  const seen: string[][] = [];
  const claimed = await store.claimDue(request({ perWebhook: 4 }), (candidates) => {
    seen.push(candidates.map((candidate) => candidate.id));
    return chooseClaims(candidates, room(5));
  });
  expect(seen).toEqual([['wsu_a_10', 'wsu_a_11', 'wsu_a_12', 'wsu_a_13', 'wsu_b_15', 'wsu_b_16']]);
  expect(claimed.map((delivery) => delivery.id)).toEqual(['wsu_a_10', 'wsu_b_15', 'wsu_a_11', 'wsu_b_16', 'wsu_a_12']);
  expect(claimed.map((delivery) => [delivery.accountId, delivery.dueAt])[0]).toEqual([1, 10]);
  const again = await store.claimDue(request({ perWebhook: 4 }), (candidates) => chooseClaims(candidates, room(256)));
  expect(again.map((delivery) => delivery.id)).toEqual(['wsu_a_13', 'wsu_a_14', 'wsu_a_15', 'wsu_a_16']);
});
