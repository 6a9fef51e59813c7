// How the IaC tools (Terraform, Pulumi, jobhooks-as-code) show jobhooks' own timestamps: RFC 3339 in UTC, which a
// person reads and Terraform's and Pulumi's time functions parse. The API keeps dbt Cloud's format (microseconds
// since the epoch as digits) for every timestamp, as dbt defines it for created_at and updated_at; the tools
// convert only the ones dbt Cloud's contract does not have (previous_secret_expires_at, archived_at), here.

const MICROSECONDS = /^\d{1,19}$/;
const MICROS_PER_SECOND = 1_000_000n;

/** `"1795737259799637"` (microseconds since the epoch) → `"2026-11-26T23:54:19.799637Z"`, keeping every digit. */
export function rfc3339FromMicros(micros: string): string {
  if (!MICROSECONDS.test(micros)) throw new RangeError(`not a timestamp in microseconds: "${micros}"`);
  const value = BigInt(micros);
  const seconds = value / MICROS_PER_SECOND;
  const fraction = (value % MICROS_PER_SECOND).toString().padStart(6, '0');
  const whole = new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, '');
  return `${whole}.${fraction}Z`;
}

/**
 * A jobhooks-only timestamp as a tool outputs it: RFC 3339, or null when there is none. A value that is already RFC
 * 3339 (carried from a state this version wrote) is kept; digits (from the API, or a state an older version wrote)
 * are converted, so a state converges to one format on its next write.
 */
export function outputTime(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return MICROSECONDS.test(value) ? rfc3339FromMicros(value) : value;
}
