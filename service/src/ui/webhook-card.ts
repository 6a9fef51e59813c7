// One webhook's facts: name, endpoint, event types, jobs, state, and its latest HTTP status or the
// Archived badge in its place (docs/decisions.md#5-archived-state-in-the-api).
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import { h } from './dom';
import { dateOf, isSuccessStatus, jobsText, latestStatusText, localTime, stateOf } from './format';

export function statusBadge(webhook: WebhookDetail): HTMLElement {
  if (webhook.archived) return h('span', { class: 'badge archived' }, 'Archived');
  const ok = isSuccessStatus(webhook.http_status_code);
  const none = webhook.http_status_code === '0';
  return h('span', { class: `badge ${none ? 'neutral' : ok ? 'success' : 'failure'}` }, latestStatusText(webhook));
}

export function timeElement(microseconds: string): HTMLTimeElement {
  return h('time', { datetime: dateOf(microseconds).toISOString() }, localTime(microseconds));
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
