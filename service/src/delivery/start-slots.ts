// The start of a request to a rate-limited webhook (domain/send-rate.ts): right before its attempt, a claimed
// delivery takes its start slot through the store, for the time it then records as the attempt's requested_at.
// Refused (another instance, or this one, took the slot), it keeps its lease and waits for the time the store
// named, unless its attempt could then no longer finish inside its lease: it then leaves the lease to run out,
// and the delivery is due again when it does (the existing path of an expired lease), its attempts unchanged.
// It gives up the same way when the dispatcher stops: no request starts after that. Webhooks without a rate never
// come here.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Micros, microsFromMillis, type Millis } from '../core/time';
import { type Clock, nowMicros } from '../core/clock';
import { type EndpointAtStart, rateSpacing } from '../domain/send-rate';
import type { WebhooksStore } from '../store/store';
import { ATTEMPT_TIMEOUT_MS } from './sender';

/**
 * What an attempt needs of its lease once it starts: its 10 s limit, the sender's 2 s margin for its thread's
 * answer, and a second to record the result. A delivery does not wait for a slot later than its lease's end
 * minus this: its result would come after the lease ran out, and another claim could send it again meanwhile.
 */
export const START_MARGIN_MICROS: Micros = microsFromMillis(ATTEMPT_TIMEOUT_MS + 3_000);

/** Whether a delivery whose lease ends at `leaseUntil` may wait for a start slot at `retryAt`. */
export function canWaitFor(retryAt: Micros, leaseUntil: Micros): boolean {
  return retryAt + START_MARGIN_MICROS <= leaseUntil;
}

/**
 * A timer's wait until `at`, rounded up, plus a millisecond: a timer may fire up to a millisecond before the clock
 * reaches its time, and the slot would then still be refused.
 */
export function slotDelayMs(at: Micros, now: Micros): Millis {
  return Math.max(0, Math.ceil((at - now) / 1000)) + 1;
}

/** What `take` resolves with when the webhook no longer takes deliveries: its delivery is skipped, not sent. */
export const WEBHOOK_STOPPED = 'webhook-stopped';

/**
 * The start granted (the attempt's requested_at, and the webhook's endpoint as it is then), none in time (null), or
 * the webhook stopped taking deliveries.
 */
export type SlotTaken = { at: Micros; endpoint: EndpointAtStart } | null | typeof WEBHOOK_STOPPED;

export interface StartSlotsDeps {
  webhooks: Pick<WebhooksStore, 'takeStartSlot'>;
  clock: Clock;
  /** Asks for a claim at `at`: the webhook's next start, when the next of its deliveries may be leased. */
  wakeAt: (at: Micros) => void;
}

export interface StartSlots {
  /**
   * Waits for a start slot of the webhook, limited to `perSecond`, for a delivery whose lease ends at
   * `leaseUntil`. Resolves with the start granted (the attempt's requested_at, and the endpoint to send to and sign
   * for, read with it), null when none came in time, or
   * WEBHOOK_STOPPED when the webhook no longer takes deliveries (deactivated, archived or deleted meanwhile).
   */
  take(webhookId: string, perSecond: number, leaseUntil: Micros): Promise<SlotTaken>;
  /**
   * Webhooks with a delivery on this instance that was claimed and has not started yet: a claim takes no other of
   * theirs, so at most one waits per webhook and instance, whatever the backlog.
   */
  waiting(): string[];
  /** Ends every wait, and any ask still to come, without a slot: the dispatcher is stopping. */
  stop(): void;
}

export function createStartSlots(deps: StartSlotsDeps): StartSlots {
  const waitingByWebhook = new Map<string, number>();
  const stopping = new AbortController();

  function count(webhookId: string, delta: number): void {
    const next = (waitingByWebhook.get(webhookId) ?? 0) + delta;
    if (next <= 0) waitingByWebhook.delete(webhookId);
    else waitingByWebhook.set(webhookId, next);
  }

  async function slotOf(webhookId: string, perSecond: number, leaseUntil: Micros): Promise<SlotTaken> {
    const spacing = rateSpacing(perSecond);
    while (!stopping.signal.aborted) {
      // The time asked for is the attempt's recorded start: the slot is granted for exactly that time.
      const at = nowMicros(deps.clock);
      const slot = await deps.webhooks.takeStartSlot(webhookId, at, spacing);
      if (slot.granted) {
        deps.wakeAt(slot.nextAt);
        return { at, endpoint: slot.endpoint };
      }
      if ('stopped' in slot) return WEBHOOK_STOPPED;
      if (!canWaitFor(slot.retryAt, leaseUntil)) {
        deps.wakeAt(slot.retryAt);
        return null;
      }
      const delayMs = slotDelayMs(slot.retryAt, nowMicros(deps.clock));
      const { signal } = stopping;
      if (!(await sleep(delayMs, true, { ref: false, signal }).catch(() => false))) break;
    }
    return null;
  }

  return {
    take(webhookId, perSecond, leaseUntil) {
      // Counted at once, before the first await: the claim that follows this one already leaves the webhook alone.
      count(webhookId, 1);
      return slotOf(webhookId, perSecond, leaseUntil).finally(() => count(webhookId, -1));
    },
    waiting: () => [...waitingByWebhook.keys()],
    stop: () => stopping.abort(),
  };
}
