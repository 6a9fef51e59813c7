// The endpoint-health columns PostgreSQL keeps on each webhook row, and the health they hold
// (endpoint-health.ts writes them).
import type { Circuit, EndpointHealth, KeptHealth } from '../../domain/endpoint-health';

const HEALTH_COLUMN_NAMES = [
  'endpoint_heard',
  'endpoint_limit',
  'endpoint_sick_in_a_row',
  'circuit_opens',
  'circuit_since',
  'circuit_until',
  'endpoint_health_revision',
] as const;

/** The columns of the health (HealthRow), for a SELECT from the table or subquery named `alias`. */
export function healthColumnsOf(alias: string): string {
  return HEALTH_COLUMN_NAMES.map((name) => `${alias}.${name}`).join(', ');
}

/** Sets the health back to an endpoint not heard from (a new client_url, a reactivation): a change like any other. */
export const RESET_HEALTH = `endpoint_heard = false, endpoint_limit = 1, endpoint_sick_in_a_row = 0,
  circuit_opens = 0, circuit_since = NULL, circuit_until = NULL,
  endpoint_health_revision = endpoint_health_revision + 1`;

/** HEALTH_COLUMN_NAMES as a row holds them. */
export interface HealthRow {
  endpoint_heard: boolean;
  endpoint_limit: number;
  endpoint_sick_in_a_row: number;
  circuit_opens: number;
  circuit_since: number | null;
  circuit_until: number | null;
  endpoint_health_revision: number;
}

export function healthFromRow(row: HealthRow): EndpointHealth {
  const { circuit_since: since, circuit_until: until } = row;
  let circuit: Circuit = { state: 'closed' };
  if (since !== null) circuit = { state: 'open', since, until: until ?? since };
  return {
    heard: row.endpoint_heard,
    limit: row.endpoint_limit,
    sickInARow: row.endpoint_sick_in_a_row,
    opens: row.circuit_opens,
    circuit,
  };
}

export function keptHealthFromRow(row: HealthRow): KeptHealth {
  return { health: healthFromRow(row), revision: row.endpoint_health_revision };
}
