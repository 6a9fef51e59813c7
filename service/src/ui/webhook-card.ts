// One webhook's facts: name, endpoint, event types, jobs, state, and its latest HTTP status or the
// Archived badge in its place (docs/decisions.md#5-archived-state-in-the-api), with the endpoint's circuit
// breaker beside it while it is not sending normally (docs/decisions.md#19-delivery-concurrency-and-leases), and,
// while a secret rotation's overlap lasts, until when the old secret still signs
// (docs/api-contract.md#15-secret-rotation).
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import { h } from './dom';
import { circuitNotice, dateOf, isSuccessStatus, jobsText, latestStatusText, localTime, stateOf } from './format';
import { managedBadge } from './managed-as-code';

function statusBadge(webhook: WebhookDetail): HTMLElement {
  if (webhook.archived) return h('span', { class: 'badge archived' }, 'Archived');
  const ok = isSuccessStatus(webhook.http_status_code);
  const none = webhook.http_status_code === '0';
  return h('span', { class: `badge ${none ? 'neutral' : ok ? 'success' : 'failure'}` }, latestStatusText(webhook));
}

/** Beside the latest status while the circuit is not closed; its words, not its colour, carry the state. */
function circuitBadge(webhook: WebhookDetail): HTMLElement | null {
  const notice = circuitNotice(webhook);
  if (notice === null) return null;
  const nextTry = notice.state === 'open' ? notice.nextTryAt : undefined;
  return h(
    'span',
    { class: `badge circuit ${notice.state === 'open' ? 'paused' : 'neutral'}` },
    notice.label,
    nextTry !== undefined && ', next try at ',
    nextTry !== undefined && timeElement(nextTry, true),
  );
}

/** While a rotation's overlap lasts: the old secret signs beside the new one until then. */
function overlapBadge(webhook: WebhookDetail): HTMLElement | null {
  const until = webhook.previous_secret_expires_at;
  if (until === undefined) return null;
  return h('span', { class: 'badge overlap neutral' }, 'Old secret valid until ', timeElement(until, true));
}

/**
 * The header's badges: the latest status (or Archived), then the circuit's state when it has one to show, then a
 * rotation's overlap while it lasts, then the entry of jobhooks-as-code's files that manages it, if one does (the
 * list shows that one beside the name instead: `withManaged` false).
 */
export function webhookBadges(webhook: WebhookDetail, withManaged = true): HTMLElement {
  return h(
    'div',
    { class: 'badges' },
    statusBadge(webhook),
    circuitBadge(webhook),
    overlapBadge(webhook),
    withManaged && managedBadge(webhook.name),
  );
}

export function timeElement(microseconds: string, withZone = false): HTMLTimeElement {
  return h('time', { datetime: dateOf(microseconds).toISOString() }, localTime(microseconds, withZone));
}

export function fact(term: string, ...value: (Node | string)[]): HTMLElement[] {
  return [h('dt', {}, term), h('dd', {}, ...value)];
}

/** The webhook's own delivery rate: "At most 5 requests per second", or "None". */
function rateFact(webhook: WebhookDetail): HTMLElement[] {
  const rate = webhook.max_requests_per_second;
  return fact(
    'Rate limit',
    rate === undefined ? 'None' : `At most ${rate} ${rate === 1 ? 'request' : 'requests'} per second`,
  );
}

export function webhookFacts(webhook: WebhookDetail, detailed = false): HTMLElement {
  const state = stateOf(webhook);
  return h(
    'dl',
    { class: 'facts' },
    ...fact('Endpoint', h('code', { class: 'url' }, webhook.client_url)),
    ...fact('Event types', webhook.event_types.join(', ')),
    ...fact('Jobs', jobsText(webhook.job_ids)),
    ...(detailed || webhook.max_requests_per_second !== undefined ? rateFact(webhook) : []),
    ...fact('State', state === 'archived' ? 'Archived (not sending)' : state === 'active' ? 'Active' : 'Inactive'),
    ...(detailed ? circuitFact(webhook) : []),
    ...(detailed ? overlapFact(webhook.previous_secret_expires_at) : []),
    ...fact('Last dispatch', webhook.dispatched_at ? timeElement(webhook.dispatched_at) : 'Never'),
    ...(webhook.archived && webhook.archived_at
      ? fact(
          'Archived',
          timeElement(webhook.archived_at),
          webhook.archived_reason ? ` — ${webhook.archived_reason}` : '',
        )
      : []),
    ...(detailed
      ? [
          ...fact('Description', webhook.description || '—'),
          ...fact('Created', timeElement(webhook.created_at)),
          ...fact('Id', h('code', {}, webhook.id)),
        ]
      : []),
  );
}

/** What a pause or a probe means for deliveries; the badge alone does not say they are kept. */
function circuitFact(webhook: WebhookDetail): HTMLElement[] {
  const notice = circuitNotice(webhook);
  return notice === null ? [] : fact('Sending', notice.explanation);
}

/** What an overlap means for each signature, on the detail view; the badge gives only its end. */
/** While a rotation's overlap lasts: until when the old secret signs. Only a webhook's overlap can be ended early. */
export function overlapFact(until: string | undefined, endable = true): HTMLElement[] {
  if (until === undefined) return [];
  return fact(
    'Signing secret',
    'Rotated. Until ',
    timeElement(until, true),
    ' the old secret still signs: the Authorization header (dbt’s scheme) with the old secret, webhook-signature ' +
      '(Standard Webhooks) with both. Then the new secret alone signs' +
      (endable ? '; End overlap now makes that happen at once.' : '.'),
  );
}
