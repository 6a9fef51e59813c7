// A webhook's own delivery rate (max_requests_per_second): its requests start evenly spaced, at least a second
// divided by the rate apart, counted over every instance. The guarantee is on the starts the delivery log records
// (requested_at): each is a start slot the store granted (decideStart), so two consecutive recorded starts of the
// webhook are at least rateSpacing apart and no second, wherever it begins, holds more than the rate. A request
// reaches its receiver a moment after its recorded start (the store's answer, then the connection and the
// network), and that moment varies: the receiver may see two requests closer together than the spacing.
// The claim only paces itself by the same stored time (startsAllowed), so it does not lease deliveries that
// would only wait; it is not what keeps the rate.
import type { Micros } from '../core/time';
import { takesDeliveries } from './webhook';

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
 * Where and how a request goes, as the webhook is when its start slot is granted: a delivery may wait for its slot
 * for most of its lease, and a new client_url or secret set meanwhile must be the one it is sent to and signed with.
 */
export interface EndpointAtStart {
  clientUrl: string;
  sealedSecret: string;
  previousSealedSecret: string | null;
  previousSecretUntil: Micros | null;
}

/** When a start may be: granted now (and the webhook's new next start), or when to ask again. */
export type StartTiming = { granted: true; nextAt: Micros } | { granted: false; retryAt: Micros };

/**
 * What asking for a start slot at some time decides: granted (with the webhook's new next start and its endpoint as
 * it is now), when to ask again, or that the webhook takes no deliveries any more (deactivated, archived or deleted
 * since its delivery was claimed): no request starts.
 */
export type StartDecision =
  | { granted: true; nextAt: Micros; endpoint: EndpointAtStart }
  | { granted: false; retryAt: Micros }
  | { granted: false; stopped: true };

/**
 * A rate-limited webhook as the store reads it for a start slot: its stored next start, whether it still sends, and
 * its endpoint.
 */
export interface StartSlotRow {
  nextAt: Micros | null;
  active: boolean;
  archived: boolean;
  endpoint: EndpointAtStart;
}

const STOPPED: StartDecision = { granted: false, stopped: true };

/**
 * The start slot of a request to the webhook read as `row` (null when it is gone): none for a webhook that no longer
 * takes deliveries, by the same rule as a claim's (a user who deactivates a webhook while one of its deliveries waits
 * for its slot gets no request after the change), else as decideStart says.
 */
export function decideStartOf(row: StartSlotRow | null, at: Micros, spacing: Micros): StartDecision {
  if (row === null || !takesDeliveries(row)) return STOPPED;
  const timing = decideStart(row.nextAt, at, spacing);
  return timing.granted ? { ...timing, endpoint: row.endpoint } : timing;
}

/**
 * The start slot of a request that would start at `at`, given the webhook's stored next start (null before its
 * first): granted once that time has come, and the next start moves to `at + spacing`; refused before it, to be
 * asked again then. The one decision of the rate; each store makes it atomically for all instances.
 */
export function decideStart(storedNextAt: Micros | null, at: Micros, spacing: Micros): StartTiming {
  const waitUntil = nextStartAfter(storedNextAt, at);
  return waitUntil === null ? { granted: true, nextAt: at + spacing } : { granted: false, retryAt: waitUntil };
}

/**
 * The webhook's next start if it is still to come at `at`; null once it has come (or before its first start). The
 * one test of the time, shared by the store's decision and the claim's pacing so the two cannot drift apart.
 */
function nextStartAfter(storedNextAt: Micros | null, at: Micros): Micros | null {
  return storedNextAt !== null && storedNextAt > at ? storedNextAt : null;
}

/**
 * How many deliveries of a webhook a claim at `now` leases: one once its next start has come, none before, no
 * limit without a rate. One, not more: a second would only wait for the next slot, holding its lease meanwhile.
 */
export function startsAllowed(rate: SendRate | null, now: Micros): number {
  if (rate === null) return Number.POSITIVE_INFINITY;
  return nextStartAfter(rate.nextAt, now) === null ? 1 : 0;
}

/** When a claim that left a webhook's deliveries because of its rate should look again: its next start; else null. */
export function rateWakeAt(rate: SendRate | null, now: Micros): Micros | null {
  return rate === null ? null : nextStartAfter(rate.nextAt, now);
}
