// What has been learnt of a webhook's endpoint from its answers: how many requests it may have in flight and
// the state of its circuit breaker. The rules that move it are in delivery/endpoint-health.ts; SQLite keeps it
// in the process's memory, PostgreSQL on the webhook's row, shared by every instance.
import type { Micros } from '../core/time';
import type { OperationalFact } from './operational-fact';

/** `since`: when the circuit opened; an answer to a request sent before that says nothing new. */
export type Circuit =
  { state: 'closed' } | { state: 'open'; since: Micros; until: Micros } | { state: 'probing'; since: Micros };

export interface EndpointHealth {
  /** Whether the endpoint has answered since the webhook got its URL (healthily or not). */
  heard: boolean;
  /** Requests allowed in flight while the circuit is closed. */
  limit: number;
  sickInARow: number;
  /** Times the circuit opened since the endpoint last answered healthily: the open period doubles with each. */
  opens: number;
  circuit: Circuit;
}

/**
 * The health as the store keeps it, with its revision: how many times the store has changed it (a reset of the
 * health included). Of two reads of one webhook's health, the one with the higher revision is the newer.
 */
export interface KeptHealth {
  health: EndpointHealth;
  revision: number;
}

/** An endpoint not heard from yet: one request at a time until it answers. */
export const UNKNOWN_ENDPOINT: EndpointHealth = {
  heard: false,
  limit: 1,
  sickInARow: 0,
  opens: 0,
  circuit: { state: 'closed' },
};

/**
 * What one answer does to the endpoint's health. The store applies the change to the health as it stands (on
 * PostgreSQL under the webhook row's lock), so instances answering at once lose none of each other's.
 */
export type EndpointHealthChange = (health: EndpointHealth) => EndpointHealth;

function sameCircuit(a: Circuit, b: Circuit): boolean {
  if (a.state === 'closed' || b.state === 'closed') return a.state === b.state;
  const untilOf = (c: Circuit) => (c.state === 'open' ? c.until : null);
  return a.state === b.state && a.since === b.since && untilOf(a) === untilOf(b);
}

/** Whether two states say the same: an answer that leaves the health the same need not be written. */
export function sameHealth(a: EndpointHealth, b: EndpointHealth): boolean {
  return (
    a.heard === b.heard &&
    a.limit === b.limit &&
    a.sickInARow === b.sickInARow &&
    a.opens === b.opens &&
    sameCircuit(a.circuit, b.circuit)
  );
}

/**
 * What a change of the health makes operational events of: the circuit opening for the first time since the endpoint
 * last answered healthily (a failed probe opens it again, with `opens` counting on: no new event), and a healthy
 * answer closing a circuit that had opened. `now`: when the change is applied.
 */
export function circuitFacts(
  webhookId: string,
  before: EndpointHealth,
  after: EndpointHealth,
  now: Micros,
): OperationalFact[] {
  const { circuit } = after;
  if (before.opens === 0 && after.opens > 0 && circuit.state === 'open') {
    return [
      {
        type: 'webhook.circuit_opened',
        webhookId,
        at: circuit.since,
        sickInARow: after.sickInARow,
        openUntil: circuit.until,
      },
    ];
  }
  if (before.opens > 0 && after.opens === 0 && circuit.state === 'closed')
    return [{ type: 'webhook.recovered', webhookId, at: now }];
  return [];
}
