// Reads a `Retry-After` header, for the dispatcher (endpoints asking it to wait) and the API client (the API asking
// it).

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfterSeconds(header: string | null, nowMillis: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date names its weekday or month; Date.parse alone would read "-3" as a year.
  const date = /[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, (date - nowMillis) / 1000);
}
