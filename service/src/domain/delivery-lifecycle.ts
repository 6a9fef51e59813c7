// Every state a delivery can be in and every move between them, in one place. Code that moves a delivery asks
// these functions what the move is; each store only writes it (a lease is stored as a pending row with a lease
// owner, its next_attempt_at holding when the lease ends).
import type { Micros } from '../core/time';
import type { DeliveryChange, DeliveryState } from './delivery';
import { takesDeliveries } from './webhook';

/** What a delivery is at one moment: its stored state, where a pending row under an unexpired lease is leased. */
export type DeliveryStage = DeliveryState | 'leased';

export interface DeliveryTransition {
  from: readonly DeliveryStage[];
  to: readonly DeliveryStage[];
  /** When it happens, in words: docs/life-of-a-delivery.md's table says the same. */
  when: string;
}

/** The whole state machine. A move not listed here is a defect. */
export const DELIVERY_TRANSITIONS = {
  planned: {
    from: [],
    to: ['pending', 'skipped'],
    when:
      'An event arrives: one delivery per webhook that wants it, pending for an active webhook and skipped (kept ' +
      'in the log, never sent) for an archived one. An inactive webhook gets none.',
  },
  claimed: {
    from: ['pending'],
    to: ['leased'],
    when: 'It is due and its webhook, account and endpoint have room: one dispatcher leases it for one attempt.',
  },
  leaseExpired: {
    from: ['leased'],
    to: ['pending'],
    when: 'The lease ran out before its result was written (a stopped or stalled instance): due at once, for any dispatcher.',
  },
  retried: {
    from: ['leased'],
    to: ['pending'],
    when: 'The attempt failed and a retry is left: due again after the retry wait.',
  },
  succeeded: { from: ['leased'], to: ['succeeded'], when: 'The attempt succeeded.' },
  failed: {
    from: ['leased'],
    to: ['failed'],
    when: 'The attempt failed with no retry left, or the endpoint answered 410 Gone, or it was a recovered delivery’s one attempt more.',
  },
  skipped: {
    from: ['pending', 'leased'],
    to: ['skipped'],
    when:
      'Its webhook was archived or deactivated: every delivery of the webhook not yet finished is skipped, when ' +
      'the archive is written, when a dispatcher claims it, when its attempt ran beside the one that archived, or ' +
      'when it was waiting for its rate-limited start.',
  },
  recovered: {
    from: ['failed'],
    to: ['pending'],
    when: 'A person recovers the failed deliveries of a time window: due at once, for one attempt more.',
  },
  redelivered: {
    from: ['succeeded', 'failed', 'skipped'],
    to: ['succeeded', 'failed', 'skipped'],
    when: 'A person sends a finished delivery again: a success marks it succeeded, a failure leaves its state.',
  },
} as const satisfies Record<string, DeliveryTransition>;

export type DeliveryTransitionName = keyof typeof DELIVERY_TRANSITIONS;

/** A webhook as planning sees it. */
export interface PlanningWebhook {
  active: boolean;
  archivedAt: Micros | null;
}

/** `planned`: the state a new event's delivery starts in, or null when the webhook gets none. */
export function plannedState(webhook: PlanningWebhook): 'pending' | 'skipped' | null {
  if (webhook.archivedAt !== null) return 'skipped';
  return webhook.active ? 'pending' : null;
}

/** `skipped` at a claim: a delivery whose webhook is archived or inactive gets no request. */
export function skippedAtClaim(claimed: { active: boolean; archived: boolean }): boolean {
  return !takesDeliveries(claimed);
}

/** `skipped` for a leased delivery whose webhook was archived while its attempt ran. */
export function skippedByArchive(): { state: 'skipped' } {
  return { state: 'skipped' };
}

/** What the retry policy decided after a dispatcher's attempt. */
export type NextStep = { kind: 'succeeded' } | { kind: 'retry'; dueAt: Micros } | { kind: 'exhausted' };

/** `retried`, `succeeded` or `failed`: where a leased delivery goes after its attempt. */
export function afterScheduledAttempt(step: NextStep): DeliveryChange {
  if (step.kind === 'retry') return { state: 'pending', nextAttemptAt: step.dueAt };
  return { state: step.kind === 'succeeded' ? 'succeeded' : 'failed' };
}

/** `redelivered`: a person's attempt at a finished delivery. */
export function afterRedelivery(succeeded: boolean): DeliveryChange {
  return succeeded ? { state: 'succeeded' } : { state: 'unchanged' };
}

/** Only a finished delivery may be redelivered by a person: a pending one is still the dispatcher's. */
export function canRedeliver(state: DeliveryState): boolean {
  return (DELIVERY_TRANSITIONS.redelivered.from as readonly DeliveryStage[]).includes(state);
}
