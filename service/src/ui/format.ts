// How the UI words times and statuses: pure functions of the API's values.
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import { DELIVERY_RULES, durationText } from '@jobhooks/client/contract/delivery-rules';
import { LIMITS } from '@jobhooks/client/contract/limits';

/** API timestamps are microseconds since the Unix epoch, as digit strings. */
export function dateOf(microseconds: string): Date {
  return new Date(Math.floor(Number(microseconds) / 1000));
}

/**
 * A timestamp in the viewer's locale and time zone, e.g. "Nov 21, 2026, 2:03:07 PM". `withZone` names the zone
 * ("… PM UTC") for a time still to come that a person may plan around, where the zone is not obvious.
 */
export function localTime(microseconds: string, withZone = false): string {
  return dateOf(microseconds).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: withZone ? 'long' : 'medium',
  });
}

export type WebhookState = 'archived' | 'active' | 'inactive';

export function stateOf(webhook: Pick<WebhookDetail, 'archived' | 'active'>): WebhookState {
  if (webhook.archived) return 'archived';
  return webhook.active ? 'active' : 'inactive';
}

/** The latest HTTP status as shown in place of the Archived badge; "0" means no delivery has been answered yet. */
export function latestStatusText(webhook: Pick<WebhookDetail, 'http_status_code' | 'dispatched_at'>): string {
  if (webhook.dispatched_at === undefined && webhook.http_status_code === '0') return 'No deliveries yet';
  if (webhook.http_status_code === '599') return 'No response';
  return `HTTP ${webhook.http_status_code}`;
}

/** Whether a status counts as success for colouring: the spec's 2xx rule. */
export function isSuccessStatus(code: string): boolean {
  return /^2\d\d$/.test(code);
}

export function jobsText(jobIds: readonly string[]): string {
  return jobIds.length === 0 ? 'All jobs' : jobIds.join(', ');
}

/**
 * The endpoint's circuit breaker as the UI words it, or null while the service sends normally: "closed", or no
 * field at all from a server that does not report it. Null for an archived webhook too: it sends nothing at all,
 * its Archived badge says so, and a pause would only distract from that. `nextTryAt` (microseconds) is when an
 * open circuit lets a probe through; `explanation` says what the state means for deliveries, for the detail view.
 */
export type CircuitNotice =
  | { state: 'open'; label: string; nextTryAt?: string; explanation: string }
  | { state: 'probing'; label: string; explanation: string };

export function circuitNotice(
  webhook: Pick<WebhookDetail, 'archived' | 'delivery_circuit' | 'delivery_circuit_open_until'>,
): CircuitNotice | null {
  if (webhook.archived) return null;
  if (webhook.delivery_circuit === 'open') {
    return {
      state: 'open',
      label: 'Paused: endpoint failing',
      ...(webhook.delivery_circuit_open_until ? { nextTryAt: webhook.delivery_circuit_open_until } : {}),
      explanation:
        'The endpoint’s recent attempts all failed (timeouts, failed connections or 5xx answers), so deliveries ' +
        'are held back until the next try: they are not lost and do not use up their attempts. ' +
        'Redeliver and Send test go out anyway, and a healthy answer resumes sending.',
    };
  }
  if (webhook.delivery_circuit === 'probing') {
    return {
      state: 'probing',
      label: 'Probing endpoint',
      explanation:
        'The pause is over: one request is sent to check the endpoint before the held deliveries follow. ' +
        'A healthy answer resumes sending; another failure pauses it again.',
    };
  }
  return null;
}

/** How long the delivery log keeps an attempt, for sentences: "7 days". */
export const LOG_RETENTION_TEXT = durationText(DELIVERY_RULES.logRetentionDays * 86_400);

/**
 * The contract's overlap default and maximum, in hours, for the rotation dialog's field (from limits.ts, which has
 * no zod: the page stays free of the schema library). The API checks the overlap with the contract's RotateSecretBody.
 */
export const SECRET_OVERLAP_HOURS = {
  default: LIMITS.secretOverlapDefaultSeconds / 3600,
  max: LIMITS.secretOverlapMaxSeconds / 3600,
} as const;

/**
 * What the overlap field sends as `overlap_seconds`: a number of hours as whole seconds; anything else as typed,
 * for the API to name the problem (an empty field is not read as 0, which would end the old secret at once).
 */
export function overlapSecondsOf(hoursText: string): number | string {
  const hours = hoursText.trim() === '' ? Number.NaN : Number(hoursText);
  return Number.isFinite(hours) ? Math.round(hours * 3600) : hoursText;
}

/**
 * A `datetime-local` field's value ("2026-11-23T09:00") as an RFC 3339 date-time with the browser's offset at that
 * moment ("2026-11-23T09:00:00+01:00"), as the delivery log's filters and a recovery take it. An empty field is
 * undefined; anything unreadable is sent as typed, for the API to name the problem.
 */
export function rfc3339OfLocal(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) || Number.isNaN(date.getTime())) return value;
  const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');
  const offset = -date.getTimezoneOffset();
  const zone = offset === 0 ? 'Z' : `${offset > 0 ? '+' : '-'}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${zone}`
  );
}

/** A `datetime-local` value in the viewer's words with its zone, for saying what a filter holds; '' when empty. */
export function localFieldTime(value: string): string {
  const date = new Date(value);
  return value === '' || Number.isNaN(date.getTime()) ? value : localTime(String(date.getTime() * 1000), true);
}

/** An attempt's HTTP status in words: "HTTP 400", or "No response" for the log's 599. */
export function statusCodeText(code: string): string {
  return code === '599' ? 'No response' : `HTTP ${code}`;
}

/** A request or response body for reading: JSON indented, anything else as it is. */
export function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
