// What has been learnt of a webhook's endpoint from its answers: how many requests it may have in flight and
// the state of its circuit breaker. The rules that move it are in delivery/endpoint-health.ts; SQLite keeps it
// in the process's memory, PostgreSQL on the webhook's row, shared by every instance.

/** `since`: when the circuit opened; an answer to a request sent before that says nothing new. */
export type Circuit =
  { state: 'closed' } | { state: 'open'; since: number; until: number } | { state: 'probing'; since: number };

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

/** An endpoint not heard from yet: one request at a time until it answers. */
export const UNKNOWN_ENDPOINT: EndpointHealth = {
  heard: false,
  limit: 1,
  sickInARow: 0,
  opens: 0,
  circuit: { state: 'closed' },
};

/**
 * What one answer does to the endpoint's health, carried with the attempt's result so the store that keeps the
 * health (PostgreSQL) applies it in the transaction that writes the result.
 */
export type EndpointHealthChange = (health: EndpointHealth) => EndpointHealth;
