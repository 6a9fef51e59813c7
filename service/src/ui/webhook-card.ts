// One webhook's facts: name, endpoint, event types, jobs, state, and its latest HTTP status or the
// Archived badge in its place (docs/decisions.md#5-archived-state-in-the-api), with the endpoint's circuit
// breaker beside it while it is not sending normally (docs/decisions.md#19-delivery-concurrency-and-leases).
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import { h } from './dom';
import { circuitNotice, dateOf, isSuccessStatus, jobsText, latestStatusText, localTime, stateOf } from './format';

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

/** The header's badges: the latest status (or Archived), then the circuit's state when it has one to show. */
export function webhookBadges(webhook: WebhookDetail): HTMLElement {
  return h('div', { class: 'badges' }, statusBadge(webhook), circuitBadge(webhook));
}

export function timeElement(microseconds: string, withZone = false): HTMLTimeElement {
  return h('time', { datetime: dateOf(microseconds).toISOString() }, localTime(microseconds, withZone));
}

function fact(term: string, ...value: (Node | string)[]): HTMLElement[] {
  return [h('dt', {}, term), h('dd', {}, ...value)];
}

export function webhookFacts(webhook: WebhookDetail, detailed = false): HTMLElement {
  const state = stateOf(webhook);
  return h(
    'dl',
    { class: 'facts' },
    ...fact('Endpoint', h('code', { class: 'url' }, webhook.client_url)),
    ...fact('Event types', webhook.event_types.join(', ')),
    ...fact('Jobs', jobsText(webhook.job_ids)),
    ...fact('State', state === 'archived' ? 'Archived (not sending)' : state === 'active' ? 'Active' : 'Inactive'),
    ...(detailed ? circuitFact(webhook) : []),
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
