// The delivery rules the API documents and the UI states: the service's policies take their numbers from here, and
// every sentence that states a rule writes it with the wording helpers below, so text and behaviour cannot drift.
// No zod here: the browser app imports this file without the schema library.
export const DELIVERY_RULES = {
  /** The delivery log keeps each attempt this long. */
  logRetentionDays: 7,
  /** A webhook is archived after this many consecutive deliveries whose every attempt failed... */
  archiveAfterFailedDeliveries: 1000,
  /** ...or after failing this many days in a row (with a failure in the last day). */
  archiveAfterFailingDays: 7,
  /** An attempt without a complete answer by then is a failure. */
  attemptTimeoutSeconds: 10,
  /** Retries after a delivery's first attempt. */
  retriesPerDelivery: 5,
  /** The wait before each retry. */
  retryDelaysSeconds: [5, 300, 1800, 7200, 18000],
  /** Each wait is stretched by a random 0 to this many percent, never shortened. */
  retryJitterPercent: 20,
} as const;

/** A whole count as people read it in English: 1,000. */
export function countText(n: number): string {
  return n.toLocaleString('en-US');
}

/** A duration in seconds as its largest whole unit, for a sentence: "7 days", "24 hours", "5 min", "10 s". */
export function durationText(seconds: number): string {
  const units: Array<[number, string, string]> = [
    [86_400, 'day', 'days'],
    [3600, 'hour', 'hours'],
  ];
  for (const [size, one, many] of units) {
    if (seconds >= size && seconds % size === 0) return seconds === size ? `1 ${one}` : `${seconds / size} ${many}`;
  }
  return seconds >= 60 && seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

/** The retry waits as a list: "5 s, 5 min, 30 min, 2 hours and 5 hours". */
export function retryDelaysText(delaysSeconds: readonly number[] = DELIVERY_RULES.retryDelaysSeconds): string {
  const words = delaysSeconds.map(durationText);
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
