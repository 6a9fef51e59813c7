// When a streak of failed deliveries makes a webhook.failing event (docs/operational-webhooks.md): a pure rule on the
// counter archive-policy.ts keeps, so the results plan decides it once for both backends.
import { DELIVERY_RULES } from '@jobhooks/client/contract';

const ARCHIVE_AFTER_FAILED_DELIVERIES: number = DELIVERY_RULES.archiveAfterFailedDeliveries;

/**
 * `webhook.failing` is sent as a streak of consecutive failed deliveries reaches each of these percentages of the
 * archive threshold (Hookdeck Outpost's steps): 500, 700, 900 and 1,000 failed deliveries with dbt Cloud's 1,000.
 */
export const FAILING_THRESHOLD_PERCENTS = [50, 70, 90, 100] as const;

/** The number of consecutive failed deliveries at which a percentage of the archive threshold is reached. */
export function failuresAtPercent(percent: number, archiveAfter: number = ARCHIVE_AFTER_FAILED_DELIVERIES): number {
  return Math.ceil((archiveAfter * percent) / 100);
}

/**
 * The thresholds a streak reached by going from `before` to `after` consecutive failed deliveries. A streak only
 * grows by one delivery at a time and starts again at 0 after a success, so each threshold is reached, and sent,
 * once per streak.
 */
export function thresholdsCrossed(
  before: number,
  after: number,
  archiveAfter: number = ARCHIVE_AFTER_FAILED_DELIVERIES,
): number[] {
  return FAILING_THRESHOLD_PERCENTS.filter((percent) => {
    const at = failuresAtPercent(percent, archiveAfter);
    return before < at && after >= at;
  });
}
