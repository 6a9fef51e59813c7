// How the UI words times and statuses: pure functions of the API's values.
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';

/** API timestamps are microseconds since the Unix epoch, as digit strings. */
export function dateOf(microseconds: string): Date {
  return new Date(Math.floor(Number(microseconds) / 1000));
}

/** A timestamp in the viewer's locale and time zone, e.g. "Nov 21, 2026, 2:03:07 PM". */
export function localTime(microseconds: string): string {
  return dateOf(microseconds).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
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
