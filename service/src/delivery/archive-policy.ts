// What each delivery attempt does to its webhook's dispatch state: status, failure counters and automatic
// archiving (docs/decisions.md#9-failed-deliveries-and-archiving). Pure, so the rules are tested on a fake clock.
import type { Micros } from '../core/time';
import { DELIVERY_RULES, durationText } from '@jobhooks/client/contract';
import type { AttemptFacts } from '../domain/attempt';
import type { DispatchState } from '../domain/webhook';

/** Archive after this many consecutive failed (exhausted) deliveries. */
export const ARCHIVE_AFTER_EXHAUSTED_DELIVERIES: number = DELIVERY_RULES.archiveAfterFailedDeliveries;
const MICROS_PER_HOUR = 3600 * 1_000_000;
/** Or after some consecutive days of failed deliveries... */
export const ARCHIVE_AFTER_FAILING_MICROS: Micros = DELIVERY_RULES.archiveAfterFailingDays * 24 * MICROS_PER_HOUR;
/**
 * ...consecutive: a day with no failed attempt ends the failing period, and the next failure starts a new one. An
 * idle webhook is not failing: old failures followed by a quiet week do not archive it at its next failed attempt.
 */
export const FAILING_GAP_MICROS: Micros = 24 * MICROS_PER_HOUR;

export const ARCHIVE_REASONS = {
  exhausted: `${ARCHIVE_AFTER_EXHAUSTED_DELIVERIES} consecutive deliveries failed`,
  failingForDays: `Deliveries have failed for ${durationText(DELIVERY_RULES.archiveAfterFailingDays * 86_400)}`,
  gone: 'The endpoint answered 410 Gone',
} as const;

function archiveReason(state: DispatchState, facts: AttemptFacts): string | null {
  if (facts.verdict === 'gone') return ARCHIVE_REASONS.gone;
  if (state.consecutiveFailures >= ARCHIVE_AFTER_EXHAUSTED_DELIVERIES) return ARCHIVE_REASONS.exhausted;
  const failingFor = state.failingSince === null ? 0 : facts.requestedAt - state.failingSince;
  if (failingFor >= ARCHIVE_AFTER_FAILING_MICROS) return ARCHIVE_REASONS.failingForDays;
  return null;
}

/**
 * When the failing period that a failed attempt at `at` belongs to began: the first failed attempt since the last
 * success, unless more than a day without a failed attempt came since, in which case this attempt begins a new one.
 */
function failingSinceAfter(current: DispatchState, at: Micros): Micros {
  const quietDay = current.lastFailureAt !== null && at - current.lastFailureAt > FAILING_GAP_MICROS;
  return current.failingSince === null || quietDay ? at : current.failingSince;
}

export function nextDispatchState(current: DispatchState, facts: AttemptFacts): DispatchState {
  const seen = { ...current, httpStatusCode: facts.statusCode, dispatchedAt: facts.requestedAt };
  if (facts.verdict === 'succeeded') {
    return { ...seen, consecutiveFailures: 0, failingSince: null, lastFailureAt: null };
  }
  // A redelivery a user asked for is not a new delivery: only its 410 Gone counts.
  if (facts.manual && facts.verdict !== 'gone') return seen;
  const failing: DispatchState = facts.manual
    ? seen
    : {
        ...seen,
        failingSince: failingSinceAfter(current, facts.requestedAt),
        lastFailureAt: facts.requestedAt,
        consecutiveFailures: current.consecutiveFailures + (facts.exhausted ? 1 : 0),
      };
  if (current.archivedAt !== null) return failing;
  const reason = archiveReason(failing, facts);
  return reason === null ? failing : { ...failing, archivedAt: facts.requestedAt, archivedReason: reason };
}
