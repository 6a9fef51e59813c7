// Size limits the API contract leaves open (docs/decisions.md#3-limits), in one place so the API, UI and IaC tools
// agree.
export const LIMITS = {
  nameMaxChars: 255,
  descriptionMaxChars: 1024,
  clientUrlMaxChars: 2048,
  jobIdsMaxEntries: 1000,
  bodyMaxBytes: 64 * 1024,
  pageLimitDefault: 10,
  pageLimitMax: 100,
  idempotencyKeyMaxChars: 255,
  /** The longest overlap a secret rotation may ask for: a week. */
  secretOverlapMaxSeconds: 7 * 24 * 60 * 60,
  /** The overlap when a rotation names none: a day, for receivers to take the new secret. */
  secretOverlapDefaultSeconds: 24 * 60 * 60,
  /**
   * The highest max_requests_per_second a webhook may set: requests to a rate-limited webhook are spaced evenly,
   * one claim each, so a higher rate is better left to the in-flight limit per webhook.
   */
  maxRequestsPerSecondMax: 100,
  /** Idempotency-Key replays are honoured for this long. */
  idempotencyWindowMicros: 24 * 60 * 60 * 1_000_000,
} as const;
