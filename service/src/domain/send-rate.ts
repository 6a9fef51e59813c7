// A webhook's own delivery rate (max_requests_per_second): its requests start evenly spaced, at least a second
// divided by the rate apart, counted over every instance. One rule, read by the claim's choice and by both stores.
import type { Micros } from '../core/time';

const MICROS_PER_SECOND = 1_000_000;

/** A rate-limited webhook as a claim reads it. */
export interface SendRate {
  /** At most this many requests start in any one second. */
  perSecond: number;
  /** The earliest start of its next request, in microseconds; null before its first. */
  nextAt: Micros | null;
}

/** The rate of a webhook row's columns; null for a webhook without one (which then costs nothing more). */
export function sendRateOf(perSecond: number | null, nextAt: Micros | null): SendRate | null {
  return perSecond === null ? null : { perSecond, nextAt };
}

/**
 * The gap between two starts, rounded up: N + 1 requests then never start within one second, so no window of a
 * second, wherever it begins, holds more than N. Evenly spaced rather than a burst of N and a pause: a burst would
 * let up to 2N through a window that straddles two bursts.
 */
export function rateSpacing(perSecond: number): Micros {
  return Math.ceil(MICROS_PER_SECOND / perSecond);
}

/**
 * How many requests a webhook's rate lets a claim at `now` start: one once its slot has come, none while it is
 * held, and no limit without a rate. One per claim keeps the spacing: a second request in the same claim would
 * start with the first.
 */
export function startsAllowed(rate: SendRate | null, now: Micros): number {
  if (rate === null) return Number.POSITIVE_INFINITY;
  return rate.nextAt === null || rate.nextAt <= now ? 1 : 0;
}

/** The slot after a request that starts at `now`: what the claim that sends it stores as the webhook's nextAt. */
export function nextStartAfter(rate: SendRate, now: Micros): Micros {
  return now + rateSpacing(rate.perSecond);
}

/**
 * When a dispatcher should look again for a webhook it left deliveries of because of its rate: at its next slot.
 * `sent`: whether this claim sends to it (its slot then moves on from `now`). Null without a rate.
 */
export function rateWakeAt(rate: SendRate | null, sent: boolean, now: Micros): Micros | null {
  if (rate === null) return null;
  if (sent) return nextStartAfter(rate, now);
  return rate.nextAt !== null && rate.nextAt > now ? rate.nextAt : null;
}

/**
 * What a claim stores for the rate-limited webhooks it sends to: each one's next slot, sorted by webhook id so two
 * transactions always lock webhook rows in the same order. Empty (no write at all) when none has a rate.
 */
export function slotsTaken(
  sent: ReadonlyArray<{ webhookId: string; sendRate: SendRate | null }>,
  now: Micros,
): Array<{ webhookId: string; nextAt: Micros }> {
  const slots = new Map<string, Micros>();
  for (const { webhookId, sendRate } of sent) {
    if (sendRate !== null) slots.set(webhookId, nextStartAfter(sendRate, now));
  }
  return [...slots]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([webhookId, nextAt]) => ({ webhookId, nextAt }));
}
