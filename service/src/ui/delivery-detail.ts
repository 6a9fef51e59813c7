// One delivery as sent (docs/api-contract.md#11-delivery-log-and-redelivery), in a dialog: the request every attempt
// made, then each attempt with what the endpoint answered. Every header and body is set as text, never as markup:
// a receiver's answer cannot become part of the page.
import type { DeliveryAttemptView, DeliveryDetail } from '@jobhooks/client/contract/delivery';
import { modal } from './dialogs';
import { h } from './dom';
import { prettyBody, statusCodeText } from './format';
import { timeElement } from './webhook-card';

const STATE_WORDS: Record<DeliveryDetail['state'], string> = {
  pending: 'Pending: retries are still to come',
  succeeded: 'Succeeded',
  failed: 'Failed',
  skipped: 'Skipped',
};

function fact(term: string, ...value: (Node | string)[]): HTMLElement[] {
  return [h('dt', {}, term), h('dd', {}, ...value)];
}

/** Headers as a list of name and value; "None" when there are none (no response came). */
function headerList(headers: Record<string, string>, label: string): HTMLElement {
  const entries = Object.entries(headers);
  if (entries.length === 0) return h('p', { class: 'empty' }, 'None');
  return h(
    'dl',
    { class: 'headers', 'aria-label': label },
    ...entries.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)]),
  );
}

/** A body in a scrolling, focusable block, so a long one neither widens the dialog nor traps the keyboard. */
function bodyBlock(body: string, label: string): HTMLElement {
  if (body === '') return h('p', { class: 'empty' }, 'Empty');
  return h('pre', { class: 'body', tabindex: 0, role: 'region', 'aria-label': label }, prettyBody(body));
}

function attemptSection(attempt: DeliveryAttemptView): HTMLElement {
  const title = `Attempt ${attempt.attempt}`;
  return h(
    'section',
    { class: `attempt ${attempt.success ? 'success' : 'failure'}`, 'aria-label': title },
    h(
      'h4',
      {},
      `${title}: `,
      h('span', { class: 'status-code' }, statusCodeText(attempt.http_status_code)),
      ' ',
      h(
        'span',
        { class: `badge ${attempt.success ? 'success' : 'failure'}` },
        attempt.success ? 'Succeeded' : 'Failed',
      ),
    ),
    h(
      'dl',
      { class: 'facts' },
      ...fact('Time', timeElement(attempt.requested_at, true)),
      ...fact('Duration', `${attempt.duration_ms} ms`),
      ...(attempt.error ? fact('Error', h('span', { class: 'error-text' }, attempt.error)) : []),
    ),
    h('h5', {}, 'Response headers'),
    headerList(attempt.response_headers, `${title} response headers`),
    h('h5', {}, 'Response body (first 4 KiB)'),
    bodyBlock(attempt.response_body, `${title} response body`),
  );
}

/** Opens the dialog of one delivery; it is removed when closed. */
export function showDeliveryDetail(detail: DeliveryDetail): HTMLDialogElement {
  const close = h('button', { type: 'button' }, 'Close');
  const dialog = modal(
    `Delivery of ${detail.event_type}`,
    h(
      'dl',
      { class: 'facts' },
      ...fact('State', STATE_WORDS[detail.state]),
      ...fact('Attempts', String(detail.attempts)),
      ...fact('Event', h('code', {}, detail.event_id)),
      ...fact('Delivery', h('code', {}, detail.id)),
    ),
    h(
      'section',
      { class: 'request', 'aria-label': 'Request' },
      h('h3', {}, 'Request'),
      h('p', {}, h('code', { class: 'url' }, `${detail.request.method} ${detail.request.url}`)),
      h(
        'p',
        { class: 'hint' },
        'The URL is the endpoint’s URL now. The signatures, and the headers that change per attempt, are described ' +
          'in place of their values: a signature, once read, could be replayed.',
      ),
      h('h4', {}, 'Headers'),
      headerList(detail.request.headers, 'Request headers'),
      h('h4', {}, 'Body'),
      bodyBlock(detail.request.body, 'Request body'),
    ),
    h(
      'section',
      { class: 'attempt-log', 'aria-label': 'Attempts' },
      h('h3', {}, 'Attempts, oldest first'),
      ...detail.attempt_log.map(attemptSection),
    ),
    h('div', { class: 'actions' }, close),
  );
  dialog.classList.add('wide');
  close.addEventListener('click', () => dialog.close());
  return dialog;
}
