// PostgreSQL keeps each webhook's endpoint health on the webhook's row, so every instance sends by what any of
// them learnt: a circuit one instance opens holds for all, and a test send's healthy answer through one closes
// it for all. Written only when an answer changes it (delivery/endpoint-health.ts), read by each claim.
import type { Circuit, EndpointHealth } from '../../domain/endpoint-health';
import type { EndpointHealthStore } from '../store';
import type { PgDatabase } from './database';

/** The columns of the health, as a claim or a webhook read selects them (`w` is the webhooks table). */
export const HEALTH_COLUMNS = `w.endpoint_heard, w.endpoint_limit, w.endpoint_sick_in_a_row, w.circuit_opens,
  w.circuit_since, w.circuit_until`;

/** Sets the health back to an endpoint not heard from (a new client_url, a reactivation). */
export const RESET_HEALTH = `endpoint_heard = false, endpoint_limit = 1, endpoint_sick_in_a_row = 0,
  circuit_opens = 0, circuit_since = NULL, circuit_until = NULL`;

export interface HealthRow {
  endpoint_heard: boolean;
  endpoint_limit: number;
  endpoint_sick_in_a_row: number;
  circuit_opens: number;
  circuit_since: number | null;
  circuit_until: number | null;
}

const LOCK_HEALTH = `SELECT ${HEALTH_COLUMNS} FROM webhooks w WHERE w.id = $1 FOR NO KEY UPDATE`;
const WRITE_HEALTH = `
  UPDATE webhooks SET endpoint_heard = $2, endpoint_limit = $3, endpoint_sick_in_a_row = $4, circuit_opens = $5,
                      circuit_since = $6, circuit_until = $7
   WHERE id = $1`;
const COUNT_NOT_CLOSED = 'SELECT count(*) AS n FROM webhooks WHERE circuit_since IS NOT NULL';

export function healthFromRow(row: HealthRow): EndpointHealth {
  const { circuit_since: since, circuit_until: until } = row;
  let circuit: Circuit = { state: 'closed' };
  if (since !== null)
    circuit = until !== null && until > since ? { state: 'open', since, until } : { state: 'probing', since };
  return {
    heard: row.endpoint_heard,
    limit: row.endpoint_limit,
    sickInARow: row.endpoint_sick_in_a_row,
    opens: row.circuit_opens,
    circuit,
  };
}

/** WRITE_HEALTH's $2..$7. A circuit waiting for its probe is kept as one whose open period ended when it began. */
function healthValues(health: EndpointHealth): unknown[] {
  const { circuit } = health;
  const since = circuit.state === 'closed' ? null : circuit.since;
  const until = circuit.state === 'open' ? circuit.until : since;
  return [health.heard, health.limit, health.sickInARow, health.opens, since, until];
}

export function createPgEndpointHealthStore(db: PgDatabase): EndpointHealthStore {
  return {
    change: (webhookId, change) =>
      db.transaction(async (client) => {
        const { rows } = await client.query<HealthRow>(LOCK_HEALTH, [webhookId]);
        if (rows[0] === undefined) return null;
        const next = change(healthFromRow(rows[0]));
        await client.query(WRITE_HEALTH, [webhookId, ...healthValues(next)]);
        return next;
      }),
    countNotClosed: async () => (await db.query<{ n: number }>(COUNT_NOT_CLOSED)).rows[0]!.n,
  };
}
