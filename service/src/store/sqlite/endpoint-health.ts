// Each webhook's endpoint health for the one process on a SQLite file: what PostgreSQL keeps on the webhook's row
// for every instance (postgres/endpoint-health.ts), kept here in the process's memory, with the same rules: a
// claim passes over a webhook whose circuit is open and reads the others' health, a new client_url or a
// reactivation starts it over, and a change that waited for its attempt's result is applied with that result. So
// the registry above the store (delivery/endpoint-health.ts) is one code path on both backends.
import type { Micros } from '../../core/time';
import {
  type Circuit,
  type EndpointHealth,
  type EndpointHealthChange,
  UNKNOWN_ENDPOINT,
} from '../../domain/endpoint-health';
import type { EndpointHealthStore } from '../store';
import type { SqliteDatabase } from './database';

export interface InProcessEndpointHealth extends EndpointHealthStore {
  /** The webhook's health; an endpoint not heard from when none is kept. */
  of(webhookId: string): EndpointHealth;
  /** True while the webhook's circuit is open and its probe not yet due: a claim passes over it. */
  isClosedOff(webhookId: string, now: Micros): boolean;
  /** The webhook points at an endpoint its health says nothing of (a new URL, a reactivation), or is gone. */
  reset(webhookId: string): void;
  /**
   * Applies changes that waited for their attempts' results, in order; the caller passes only those of webhooks
   * that still exist (its results transaction read them).
   */
  applyDeferred(changes: ReadonlyArray<readonly [webhookId: string, change: EndpointHealthChange]>): void;
}

const isClosed = (circuit: Circuit) => circuit.state === 'closed';

export function createInProcessEndpointHealth(db: SqliteDatabase): InProcessEndpointHealth {
  // Only webhooks whose endpoint answered are kept; the webhooks of one database bound them (1,000 an account).
  const healths = new Map<string, EndpointHealth>();
  const exists = db.prepare<[string], { found: number }>('SELECT 1 AS found FROM webhooks WHERE id = ?');

  const of = (webhookId: string) => healths.get(webhookId) ?? UNKNOWN_ENDPOINT;
  // Frozen, circuit too: every caller is handed the object kept here, and none may change what another reads.
  const set = (webhookId: string, health: EndpointHealth) => {
    if (health === UNKNOWN_ENDPOINT) healths.delete(webhookId);
    else healths.set(webhookId, Object.freeze({ ...health, circuit: Object.freeze({ ...health.circuit }) }));
  };

  return {
    of,
    isClosedOff(webhookId, now) {
      const { circuit } = of(webhookId);
      return circuit.state === 'open' && circuit.until > now;
    },
    reset(webhookId) {
      healths.delete(webhookId);
    },
    applyDeferred(changes) {
      for (const [webhookId, change] of changes) set(webhookId, change(of(webhookId)));
    },
    async change(webhookId, change) {
      // A webhook deleted while its attempt ran has no health to keep (PostgreSQL finds no row).
      if (exists.get(webhookId) === undefined) {
        healths.delete(webhookId);
        return null;
      }
      const after = change(of(webhookId));
      set(webhookId, after);
      return after;
    },
    countNotClosed: async () => [...healths.values()].filter((health) => !isClosed(health.circuit)).length,
  };
}
