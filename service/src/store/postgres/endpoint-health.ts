// PostgreSQL keeps each webhook's endpoint health on the webhook's row, so every instance sends by what any of
// them learnt: a circuit one instance opens holds for all, and a test send's healthy answer through one closes
// it for all. Written when an answer changes it, here or with the attempt's result (deliveries.ts); read by
// each claim (delivery/endpoint-health.ts says when each happens).
import type pg from 'pg';
import { type EndpointHealthChange, type KeptHealth, sameHealth } from '../../domain/endpoint-health';
import { healthColumnsOf, healthFromRow, type HealthRow, keptHealthFromRow, RESET_HEALTH } from './health-row';

export { healthColumnsOf, healthFromRow, type HealthRow, keptHealthFromRow, RESET_HEALTH };
import type { EndpointHealthStore } from '../store';
import { asColumns, type PgDatabase, prepared } from './database';
import { settleEach, type Waiting, writeTogetherOrApart } from '../write-apart';
import { createSerialBatches } from './serial-batches';
import { circuitFacts } from '../../domain/endpoint-health';
import type { OperationalFact } from '../../domain/operational-fact';
import type { OperationalEventMaker } from '../operational-plan';
import { writeOperationalEvents } from './operational-events';

/** Sorted ids: every transaction that holds several webhook rows takes them in id order, so none waits on another. */
const LOCK_HEALTHS = prepared(`
  SELECT w.id, ${healthColumnsOf('w')} FROM webhooks w WHERE w.id = ANY($1::text[]) ORDER BY w.id FOR NO KEY UPDATE`);
/** One array per column, so a batch costs one statement however many rows it writes. Each write is a revision. */
const WRITE_HEALTHS = prepared(`
  UPDATE webhooks w SET endpoint_heard = u.heard, endpoint_limit = u.lim, endpoint_sick_in_a_row = u.sick,
                        circuit_opens = u.opens, circuit_since = u.since, circuit_until = u.until,
                        endpoint_health_revision = w.endpoint_health_revision + 1
    FROM unnest($1::text[], $2::boolean[], $3::integer[], $4::integer[], $5::integer[], $6::bigint[], $7::bigint[])
         AS u(id, heard, lim, sick, opens, since, until)
   WHERE w.id = u.id`);
const COUNT_NOT_CLOSED = 'SELECT count(*) AS n FROM webhooks WHERE circuit_since IS NOT NULL';

/** A row's columns for WRITE_HEALTHS. A circuit waiting for its probe is kept as one whose open period is over. */
function healthValues(webhookId: string, { health }: KeptHealth): unknown[] {
  const { circuit } = health;
  const since = circuit.state === 'closed' ? null : circuit.since;
  const until = circuit.state === 'open' ? circuit.until : since;
  return [webhookId, health.heard, health.limit, health.sickInARow, health.opens, since, until];
}

/**
 * Applies `changes`, in order, to the health of the rows `before` holds (those that still exist), and writes the
 * rows they changed, with the operational events of their circuits when `maker` is given. The caller holds the
 * rows, so of instances changing one row at once, only one sees its circuit open. Resolves with each row's health
 * after the changes, with its revision: one more than before where the row was written.
 */
export async function applyHealthChanges(
  client: pg.PoolClient,
  before: ReadonlyMap<string, KeptHealth>,
  changes: ReadonlyArray<readonly [webhookId: string, change: EndpointHealthChange]>,
  maker: OperationalEventMaker | null,
): Promise<Map<string, KeptHealth>> {
  const after = new Map(before);
  const facts: OperationalFact[] = [];
  const now = maker?.now() ?? 0;
  for (const [webhookId, change] of changes) {
    const kept = after.get(webhookId);
    if (kept === undefined) continue;
    const next = change(kept.health);
    after.set(webhookId, { health: next, revision: kept.revision });
    facts.push(...circuitFacts(webhookId, kept.health, next, now));
  }
  const changed = [...after].filter(([webhookId, kept]) => !sameHealth(before.get(webhookId)!.health, kept.health));
  if (changed.length > 0) {
    await client.query(
      WRITE_HEALTHS,
      asColumns(
        changed.map(([id, kept]) => healthValues(id, kept)),
        7,
      ),
    );
    // The statement added one to each written row's revision, which the caller holds: no other writer came between.
    for (const [id, kept] of changed) after.set(id, { health: kept.health, revision: kept.revision + 1 });
    if (maker !== null) await writeOperationalEvents(client, facts, maker);
  }
  return after;
}

interface WaitingChange extends Waiting<KeptHealth | null> {
  webhookId: string;
  change: EndpointHealthChange;
  maker: OperationalEventMaker | null;
}

/**
 * Changes are written one transaction at a time per instance, each taking every change that arrived while the
 * previous one ran: when many endpoints fail at once, their answers hold one connection, not one each.
 */
function createHealthWriter(db: PgDatabase) {
  /** One transaction for the changes, applied in order; each change's webhook health after all of them. */
  const writeChanges = (changes: readonly WaitingChange[]) =>
    db.transaction(async (client) => {
      const ids = [...new Set(changes.map((w) => w.webhookId))].sort();
      const { rows } = await client.query<HealthRow & { id: string }>(LOCK_HEALTHS, [ids]);
      const before = new Map(rows.map((row) => [row.id, keptHealthFromRow(row)]));
      // Every caller in the service passes the same maker (the registry's).
      const maker = changes.find((w) => w.maker !== null)?.maker ?? null;
      const after = await applyHealthChanges(
        client,
        before,
        changes.map((w) => [w.webhookId, w.change] as const),
        maker,
      );
      return changes.map((w) => after.get(w.webhookId) ?? null);
    });
  const enqueue = createSerialBatches<WaitingChange>(async (batch) => {
    // Written apart when refused, still in order (write-apart.ts).
    settleEach(batch, await writeTogetherOrApart(batch, writeChanges));
  });

  return (webhookId: string, change: EndpointHealthChange, maker: OperationalEventMaker | null = null) =>
    new Promise<KeptHealth | null>((resolve, reject) => enqueue({ webhookId, change, maker, resolve, reject }));
}

export function createPgEndpointHealthStore(db: PgDatabase): EndpointHealthStore {
  return {
    change: createHealthWriter(db),
    countNotClosed: async () => (await db.query<{ n: number }>(COUNT_NOT_CLOSED)).rows[0]!.n,
  };
}
