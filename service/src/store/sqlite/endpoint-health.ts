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
import type { WebhookRecord } from '../../domain/webhook';
import type { StoredWebhook } from '../rows';
import type { EndpointHealthStore } from '../store';
import type { SqliteDatabase } from './database';
import { circuitFacts } from '../../domain/endpoint-health';
import type { OperationalEventMaker } from '../operational-plan';
import { prepareOperationalWrite } from './operational-events';

export interface InProcessEndpointHealth extends EndpointHealthStore {
  /** The webhook's health; an endpoint not heard from when none is kept. */
  of(webhookId: string): EndpointHealth;
  /** How many times the webhook's health has changed in this process (a reset included); 0 when never. */
  revisionOf(webhookId: string): number;
  /** The webhook as the store hands it on: its row with its endpoint's health and that health's revision. */
  withHealth(webhook: StoredWebhook): WebhookRecord;
  /** True while the webhook's circuit is open and its probe not yet due: a claim passes over it. */
  isClosedOff(webhookId: string, now: Micros): boolean;
  /** The webhook points at an endpoint its health says nothing of (a new URL, a reactivation). */
  reset(webhookId: string): void;
  /** The webhook is gone: nothing of it is kept. */
  forget(webhookId: string): void;
  /**
   * Applies changes that waited for their attempts' results, in order; the caller passes only those of webhooks
   * that still exist (its results transaction read them).
   */
  applyDeferred(
    changes: ReadonlyArray<readonly [webhookId: string, change: EndpointHealthChange]>,
    maker: OperationalEventMaker | null,
  ): void;
}

const isClosed = (circuit: Circuit) => circuit.state === 'closed';

/**
 * `onLost` hears of circuit events a failed write lost (a full disk): the results they follow are committed by
 * then, so the failure is reported rather than thrown.
 */
export function createInProcessEndpointHealth(
  db: SqliteDatabase,
  onLost: (error: unknown) => void = () => undefined,
): InProcessEndpointHealth {
  // Only webhooks whose endpoint answered are kept; the webhooks of one database bound them (1,000 an account).
  const healths = new Map<string, EndpointHealth>();
  // Kept for the webhooks that have a health, and for those whose health was reset, until they are gone.
  const revisions = new Map<string, number>();
  const revisionOf = (webhookId: string) => revisions.get(webhookId) ?? 0;
  const bump = (webhookId: string) => revisions.set(webhookId, revisionOf(webhookId) + 1);
  const exists = db.prepare<[string], { found: number }>('SELECT 1 AS found FROM webhooks WHERE id = ?');

  const of = (webhookId: string) => healths.get(webhookId) ?? UNKNOWN_ENDPOINT;
  // Frozen, circuit too: every caller is handed the object kept here, and none may change what another reads.
  const set = (webhookId: string, health: EndpointHealth) => {
    bump(webhookId);
    if (health === UNKNOWN_ENDPOINT) healths.delete(webhookId);
    else healths.set(webhookId, Object.freeze({ ...health, circuit: Object.freeze({ ...health.circuit }) }));
  };
  // The health lives in this process's memory, so the circuit's events are written in a transaction of their own as
  // it changes (docs/operational-webhooks.md#when-each-event-is-made).
  const withHealth = (webhook: StoredWebhook): WebhookRecord => ({
    ...webhook,
    endpointHealth: of(webhook.id),
    endpointHealthRevision: revisionOf(webhook.id),
  });
  const writeOperational = prepareOperationalWrite(db, { withHealth });
  const writeCircuitEvents = db.transaction(
    (steps: ReadonlyArray<readonly [string, EndpointHealth, EndpointHealth]>, maker: OperationalEventMaker) => {
      const now = maker.now();
      writeOperational(
        steps.flatMap(([webhookId, before, after]) => circuitFacts(webhookId, before, after, now)),
        maker,
      );
    },
  );
  type Step = readonly [webhookId: string, before: EndpointHealth, after: EndpointHealth];
  /** Each change in order from the health kept (nothing is set yet), and each webhook's health after them all. */
  const fold = (changes: ReadonlyArray<readonly [string, EndpointHealthChange]>) => {
    const afters = new Map<string, EndpointHealth>();
    const steps: Step[] = [];
    for (const [webhookId, change] of changes) {
      const before = afters.get(webhookId) ?? of(webhookId);
      const after = change(before);
      afters.set(webhookId, after);
      steps.push([webhookId, before, after]);
    }
    return { afters, steps };
  };
  const moveCircuit = (steps: readonly Step[]) => steps.some(([id, b, a]) => circuitFacts(id, b, a, 0).length > 0);
  /**
   * Applies the changes in order, writing the events of the circuits they move first: if that write fails, no health
   * has changed, and the caller's retry (the change written with the attempt's result) applies each change once.
   */
  const apply = (
    changes: ReadonlyArray<readonly [string, EndpointHealthChange]>,
    maker: OperationalEventMaker | null,
  ): void => {
    const { afters, steps } = fold(changes);
    if (maker !== null && moveCircuit(steps)) writeCircuitEvents.immediate(steps, maker);
    for (const [webhookId, after] of afters) set(webhookId, after);
  };

  return {
    of,
    revisionOf,
    withHealth,
    isClosedOff(webhookId, now) {
      const { circuit } = of(webhookId);
      return circuit.state === 'open' && circuit.until > now;
    },
    reset(webhookId) {
      healths.delete(webhookId);
      bump(webhookId);
    },
    forget(webhookId) {
      healths.delete(webhookId);
      revisions.delete(webhookId);
    },
    applyDeferred(changes, maker) {
      // After the results' commit, which must not be reported as failed: the health is set whatever happens to the
      // events, and a refused write of them (a full disk) loses them, as it would lose the health on a restart.
      const { afters, steps } = fold(changes);
      for (const [webhookId, after] of afters) set(webhookId, after);
      if (maker === null || !moveCircuit(steps)) return;
      try {
        writeCircuitEvents.immediate(steps, maker);
      } catch (error) {
        onLost(error);
      }
    },
    async change(webhookId, change, maker = null) {
      // A webhook deleted while its attempt ran has no health to keep (PostgreSQL finds no row).
      if (exists.get(webhookId) === undefined) {
        healths.delete(webhookId);
        revisions.delete(webhookId);
        return null;
      }
      apply([[webhookId, change]], maker);
      return { health: of(webhookId), revision: revisionOf(webhookId) };
    },
    countNotClosed: async () => [...healths.values()].filter((health) => !isClosed(health.circuit)).length,
  };
}
