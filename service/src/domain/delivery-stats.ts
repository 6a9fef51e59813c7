// The hourly rollup of the delivery log: per webhook and hour, attempts and finished deliveries by outcome, and a
// small fixed histogram of attempt durations from which response-time percentiles are read. Written with each
// batch of results (store/results-plan.ts), purged with the log, read by the statistics endpoints.

export const HOUR_MICROS = 3600 * 1_000_000;

/**
 * Upper bounds, in milliseconds, of the duration histogram's buckets. An attempt's timer stops it at 10 s, so the
 * last bucket holds every duration above 5 s (a timed-out attempt may run a few milliseconds past 10 s).
 */
export const DURATION_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;

/** One webhook's hour of the rollup. `durations[i]` counts the attempts in bucket i of DURATION_BOUNDS_MS. */
export interface StatsHour {
  webhookId: string;
  /** The hour's start, microseconds since the epoch (a multiple of HOUR_MICROS). */
  hour: number;
  attemptsSucceeded: number;
  attemptsFailed: number;
  /** Deliveries whose last attempt, made in this hour, succeeded (or failed for good). */
  deliveriesSucceeded: number;
  deliveriesFailed: number;
  durations: number[];
}

/** The start of the hour `micros` falls in. */
export function hourOf(micros: number): number {
  return Math.floor(micros / HOUR_MICROS) * HOUR_MICROS;
}

/** The index of the histogram bucket a duration falls in. */
export function durationBucketOf(durationMs: number): number {
  const index = DURATION_BOUNDS_MS.findIndex((bound) => durationMs <= bound);
  return index === -1 ? DURATION_BOUNDS_MS.length - 1 : index;
}

export function emptyHour(webhookId: string, hour: number): StatsHour {
  return {
    webhookId,
    hour,
    attemptsSucceeded: 0,
    attemptsFailed: 0,
    deliveriesSucceeded: 0,
    deliveriesFailed: 0,
    durations: DURATION_BOUNDS_MS.map(() => 0),
  };
}

/** Adds `b`'s counts into `a` (same shape), in place. */
export function addInto(a: StatsHour, b: StatsHour): StatsHour {
  a.attemptsSucceeded += b.attemptsSucceeded;
  a.attemptsFailed += b.attemptsFailed;
  a.deliveriesSucceeded += b.deliveriesSucceeded;
  a.deliveriesFailed += b.deliveriesFailed;
  b.durations.forEach((n, i) => {
    a.durations[i] = (a.durations[i] ?? 0) + n;
  });
  return a;
}

/**
 * The upper bound (ms) of the bucket that holds the `q`-quantile of the counted durations (q in (0, 1]), the
 * nearest-rank way: the bucket of the ceil(q * n)-th smallest duration. Null when nothing was counted.
 */
export function quantileBound(durations: readonly number[], q: number): number | null {
  const total = durations.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (const [i, n] of durations.entries()) {
    seen += n;
    if (seen >= rank) return DURATION_BOUNDS_MS[i]!;
  }
  return DURATION_BOUNDS_MS[DURATION_BOUNDS_MS.length - 1]!;
}

/** The SQL column of each histogram bucket, in order (both backends name them alike). */
export const DURATION_COLUMNS = DURATION_BOUNDS_MS.map((bound) => `ms_le_${bound}`);
