// Recent Deliveries of one webhook or operational endpoint (the API keeps 7 days): one row per delivery, newest
// first, with its result kept in view at any width and its attempts beneath; filters on the log; a delivery's request
// and responses in a dialog; Redeliver on a failed delivery and, for a webhook, Recover failed deliveries for a
// window, for tokens that may write.
import type { EventTypeName, OperationalEventTypeName } from '@jobhooks/client/contract/closed-lists';
import type { DeliveryAttemptView, DeliveryDetail } from '@jobhooks/client/contract/delivery';
import type { DeliveryFilters, DeliveryOwner } from './api';
import type { UiContext } from './context';
import { showDeliveryDetail } from './delivery-detail';
import { askToRecover } from './dialogs';
import { busy, h, show, uniqueId } from './dom';
import { LOG_RETENTION_TEXT, localFieldTime, rfc3339OfLocal, statusCodeText } from './format';
import { timeElement } from './webhook-card';
import { shownName } from './managed-as-code';

/** Attempts per page: enough that a delivery's attempts (six at most, before redeliveries) are usually together. */
export const DELIVERIES_PER_PAGE = 100;
/** At most this many failed deliveries of a page are looked up to tell pending (retries to come) from failed. */
const STATE_LOOKUPS_PER_PAGE = 20;

/** The filters as their fields hold them: '' for all; times as `datetime-local` values in the viewer's zone. */
export interface DeliveryLogFilters {
  status: '' | 'succeeded' | 'failed';
  event_type: '' | EventTypeName | OperationalEventTypeName;
  since: string;
  until: string;
}

/** Which part of the log is in view: kept when a redelivery or a recovery draws the page again. */
export interface DeliveryLogView {
  offset: number;
  filters: DeliveryLogFilters;
}

export const NO_FILTERS: DeliveryLogFilters = { status: '', event_type: '', since: '', until: '' };
const FIRST_PAGE: DeliveryLogView = { offset: 0, filters: NO_FILTERS };

function filtering(filters: DeliveryLogFilters): boolean {
  return Object.values(filters).some((value) => value !== '');
}

function apiFilters(filters: DeliveryLogFilters): DeliveryFilters {
  const since = rfc3339OfLocal(filters.since);
  const until = rfc3339OfLocal(filters.until);
  return {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.event_type ? { event_type: filters.event_type } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
  };
}

/** One delivery as the page shows it: its attempts on this page, oldest first. Test sends are one row each. */
interface DeliveryRow {
  deliveryId: string | null;
  attempts: DeliveryAttemptView[];
  newest: DeliveryAttemptView;
  /** Looked up for a delivery whose newest attempt failed: pending while retries are still to come. */
  detail?: DeliveryDetail;
}

/** Groups the page's attempts (newest first) by delivery, in the order of each delivery's newest attempt. */
function rowsOf(items: readonly DeliveryAttemptView[]): DeliveryRow[] {
  const rows: DeliveryRow[] = [];
  const byId = new Map<string, DeliveryRow>();
  for (const attempt of items) {
    const known = attempt.delivery_id === null ? undefined : byId.get(attempt.delivery_id);
    if (known) {
      known.attempts.unshift(attempt);
      continue;
    }
    const row: DeliveryRow = { deliveryId: attempt.delivery_id, attempts: [attempt], newest: attempt };
    rows.push(row);
    if (attempt.delivery_id !== null) byId.set(attempt.delivery_id, row);
  }
  return rows;
}

/** Looks up the deliveries whose newest attempt failed (a few per page), to tell pending from failed. */
async function lookUpFailed(owner: DeliveryOwner, rows: DeliveryRow[]): Promise<void> {
  const failed = rows.filter((row) => row.deliveryId !== null && !row.newest.success);
  await Promise.all(
    failed.slice(0, STATE_LOOKUPS_PER_PAGE).map(async (row) => {
      try {
        row.detail = await owner.delivery(row.deliveryId ?? '');
      } catch {
        // Without it the row says what its newest attempt did.
      }
    }),
  );
}

type Result = { words: string; tone: 'success' | 'failure' | 'neutral' };

function resultOf(row: DeliveryRow): Result {
  switch (row.detail?.state) {
    case 'pending':
      return { words: 'Pending', tone: 'neutral' };
    case 'skipped':
      return { words: 'Skipped', tone: 'neutral' };
    case 'succeeded':
      return { words: 'Succeeded', tone: 'success' };
    case 'failed':
      return { words: 'Failed', tone: 'failure' };
    default:
      return row.newest.success ? { words: 'Succeeded', tone: 'success' } : { words: 'Failed', tone: 'failure' };
  }
}

/**
 * Redeliver sends the whole delivery again, so one per delivery: offered when its newest attempt failed and no
 * automatic retry is still to come.
 */
function redeliverButton(
  ctx: UiContext,
  owner: DeliveryOwner,
  row: DeliveryRow,
  reload: () => void,
): HTMLButtonElement | null {
  const deliveryId = row.deliveryId;
  if (!ctx.canWrite || row.newest.success || deliveryId === null || row.detail?.state === 'pending') return null;
  const button = h(
    'button',
    { type: 'button', 'aria-label': `Redeliver attempt ${row.newest.attempt} of event ${row.newest.event_id}` },
    'Redeliver',
  );
  button.addEventListener('click', () => {
    button.disabled = true;
    owner
      .redeliver(deliveryId)
      .then((sent) => {
        ctx.notify(
          sent.success
            ? `Redelivered: the endpoint answered HTTP ${sent.http_status_code}.`
            : `Redelivery failed (HTTP ${sent.http_status_code}): ${sent.error ?? ''}`,
        );
        reload();
      })
      .catch((error: unknown) => {
        button.disabled = false;
        ctx.fail(error);
      });
  });
  return button;
}

function detailButton(ctx: UiContext, owner: DeliveryOwner, row: DeliveryRow): HTMLButtonElement | null {
  const deliveryId = row.deliveryId;
  if (deliveryId === null) return null;
  const button = h(
    'button',
    { type: 'button', 'aria-label': `Request and responses of event ${row.newest.event_id}` },
    'Request and responses',
  );
  button.addEventListener('click', () =>
    busy(button, async () => {
      try {
        showDeliveryDetail(await owner.delivery(deliveryId));
      } catch (error) {
        ctx.fail(error);
      }
    }),
  );
  return button;
}

function attemptsTable(row: DeliveryRow): HTMLElement {
  return h(
    'div',
    { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': `Attempts of event ${row.newest.event_id}` },
    h(
      'table',
      { class: 'deliveries' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Attempt', 'Time', 'Status', 'Duration', 'Result', 'Error'].map((title) =>
            h('th', { scope: 'col' }, title),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        ...row.attempts.map((attempt) =>
          h(
            'tr',
            { class: attempt.success ? 'success' : 'failure' },
            h('td', { class: 'number' }, String(attempt.attempt)),
            h('td', {}, timeElement(attempt.requested_at, true)),
            h('td', { class: 'number' }, attempt.http_status_code === '599' ? 'none' : attempt.http_status_code),
            h('td', { class: 'number' }, `${attempt.duration_ms} ms`),
            h(
              'td',
              {},
              h(
                'span',
                { class: `badge ${attempt.success ? 'success' : 'failure'}` },
                attempt.success ? 'Succeeded' : 'Failed',
              ),
            ),
            h('td', { class: 'error-text' }, attempt.error ?? ''),
          ),
        ),
      ),
    ),
  );
}

function attemptsSummary(row: DeliveryRow): string {
  const count = row.detail?.attempts ?? row.newest.attempt;
  const total = `${count} ${count === 1 ? 'attempt' : 'attempts'}`;
  return row.attempts.length < count ? `${total} (${row.attempts.length} on this page)` : total;
}

function deliveryItem(ctx: UiContext, owner: DeliveryOwner, row: DeliveryRow, reload: () => void): HTMLElement {
  const result = resultOf(row);
  const actions = [detailButton(ctx, owner, row), redeliverButton(ctx, owner, row, reload)].filter(
    (button) => button !== null,
  );
  return h(
    'li',
    { class: `delivery ${result.tone}`, 'data-delivery-id': row.deliveryId ?? undefined },
    h(
      'div',
      { class: 'delivery-head' },
      h(
        'div',
        { class: 'delivery-what' },
        h('span', { class: 'event-type' }, row.newest.event_type),
        row.newest.test && h('span', { class: 'badge neutral test' }, 'test'),
        ' ',
        timeElement(row.newest.requested_at, true),
      ),
      h(
        'div',
        { class: 'delivery-outcome' },
        h('span', { class: 'status-code' }, statusCodeText(row.newest.http_status_code)),
        h('span', { class: `badge result ${result.tone}` }, result.words),
      ),
    ),
    h('details', { class: 'attempts' }, h('summary', {}, attemptsSummary(row)), attemptsTable(row)),
    actions.length > 0 && h('div', { class: 'actions' }, ...actions),
  );
}

function recoverButton(
  ctx: UiContext,
  name: string,
  recover: NonNullable<DeliveryOwner['recover']>,
  recovered: () => void,
): HTMLButtonElement {
  const button = h('button', { type: 'button', 'data-focus-key': 'recover' }, 'Recover failed deliveries');
  button.addEventListener('click', () =>
    busy(button, async () => {
      try {
        const answer = await askToRecover(shownName(name), recover);
        if (answer === null) return;
        ctx.notify(
          answer.recovered === 1
            ? '1 failed delivery will be sent again.'
            : `${answer.recovered} failed deliveries will be sent again.`,
        );
        recovered();
      } catch (error) {
        ctx.fail(error);
      }
    }),
  );
  return button;
}

/** A select of `options` (value and words) named `name`, with its label. */
function selectField(label: string, name: string, value: string, options: [string, string][]): HTMLElement {
  const select = h(
    'select',
    { id: uniqueId('filter'), name },
    ...options.map(([optionValue, words]) =>
      h('option', { value: optionValue, selected: optionValue === value }, words),
    ),
  );
  return h('div', { class: 'field' }, h('label', { for: select.id }, label), select);
}

function timeField(label: string, name: string, value: string): HTMLElement {
  const input = h('input', { type: 'datetime-local', id: uniqueId('filter'), name, value, step: 1 });
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input);
}

/** The filters above the log; `apply` draws the log's first page with the chosen ones. */
function filterForm(
  eventTypes: DeliveryOwner['eventTypes'],
  filters: DeliveryLogFilters,
  apply: (filters: DeliveryLogFilters) => void,
): HTMLFormElement {
  const clear = h('button', { type: 'button', 'data-focus-key': 'clear-filters' }, 'Clear filters');
  const form = h(
    'form',
    { class: 'delivery-filters', role: 'search', 'aria-label': 'Filter deliveries', novalidate: true },
    selectField('Status', 'status', filters.status, [
      ['', 'All'],
      ['succeeded', 'Succeeded'],
      ['failed', 'Failed'],
    ]),
    selectField('Event type', 'event_type', filters.event_type, [
      ['', 'All'],
      ...eventTypes.map((type): [string, string] => [type, type]),
    ]),
    timeField('Since', 'since', filters.since),
    timeField('Until', 'until', filters.until),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', 'data-focus-key': 'apply-filters' }, 'Apply filters'),
      filtering(filters) && clear,
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '');
    apply({
      status: text('status') as DeliveryLogFilters['status'],
      event_type: text('event_type') as DeliveryLogFilters['event_type'],
      since: text('since'),
      until: text('until'),
    });
  });
  clear.addEventListener('click', () => apply(NO_FILTERS));
  return form;
}

/** The filters in force, in words, e.g. "Showing failed attempts of job.run.completed since …". */
function filterSummary(filters: DeliveryLogFilters): HTMLElement | null {
  if (!filtering(filters)) return null;
  const parts = [
    `Showing ${filters.status ? `${filters.status} attempts` : 'attempts'}`,
    filters.event_type && ` of ${filters.event_type}`,
    filters.since && ` since ${localFieldTime(filters.since)}`,
    filters.until && ` until ${localFieldTime(filters.until)}`,
  ];
  return h('p', { class: 'filter-summary' }, ...parts, '.');
}

/**
 * Draws the filters and one page of `owner`'s log into `into`. `redrawPage` runs after a redelivery or a recovery
 * (the owner's status may change too), with the view to keep; by default only the log is drawn again.
 */
export async function renderDeliveries(
  ctx: UiContext,
  owner: DeliveryOwner,
  into: HTMLElement,
  view: DeliveryLogView = FIRST_PAGE,
  redrawPage?: (view: DeliveryLogView) => void,
): Promise<void> {
  const { offset, filters } = view;
  const go = (next: DeliveryLogView) => void renderDeliveries(ctx, owner, into, next, redrawPage);
  const reload = () => (redrawPage ? redrawPage(view) : go(view));
  const focusKey = into.contains(document.activeElement)
    ? (document.activeElement as HTMLElement).dataset['focusKey']
    : undefined;
  const refresh = h('button', { type: 'button', 'data-focus-key': 'refresh', onclick: () => go(view) }, 'Refresh');
  const toolbar = h(
    'div',
    { class: 'actions delivery-toolbar' },
    refresh,
    ctx.canWrite && owner.recover && recoverButton(ctx, owner.name, owner.recover.bind(owner), reload),
  );
  const form = filterForm(owner.eventTypes, filters, (chosen) => go({ offset: 0, filters: chosen }));
  into.setAttribute('aria-busy', 'true');
  // A render started later (a Refresh, a reload after an action) supersedes this one: what this one read may be
  // older, and drawing it last would show a page from before what the newer one read.
  const generation = String(Number(into.dataset['generation'] ?? '0') + 1);
  into.dataset['generation'] = generation;
  const superseded = () => into.dataset['generation'] !== generation;
  let page;
  let rows: DeliveryRow[];
  try {
    page = await owner.deliveries(offset, DELIVERIES_PER_PAGE, apiFilters(filters));
    rows = rowsOf(page.items);
    await lookUpFailed(owner, rows);
  } catch (error) {
    if (superseded()) return;
    into.removeAttribute('aria-busy');
    show(into, form, h('p', {}, 'The deliveries could not be loaded.'), toolbar);
    return ctx.fail(error);
  }
  if (superseded()) return;
  into.removeAttribute('aria-busy');
  const restoreFocus = () => {
    if (focusKey) into.querySelector<HTMLElement>(`[data-focus-key="${focusKey}"]`)?.focus();
  };
  if (page.items.length === 0 && offset === 0) {
    const empty = filtering(filters)
      ? h('p', { class: 'empty' }, 'No attempts match these filters.')
      : h('p', { class: 'empty' }, `No deliveries in the last ${LOG_RETENTION_TEXT}.`);
    show(into, form, filterSummary(filters), empty, toolbar);
    return restoreFocus();
  }
  const last = Math.min(offset + page.items.length, page.total);
  const previous = h('button', { type: 'button', disabled: offset === 0, 'data-focus-key': 'newer' }, 'Newer');
  const next = h('button', { type: 'button', disabled: last >= page.total, 'data-focus-key': 'older' }, 'Older');
  previous.addEventListener('click', () => go({ offset: Math.max(0, offset - DELIVERIES_PER_PAGE), filters }));
  next.addEventListener('click', () => go({ offset: offset + DELIVERIES_PER_PAGE, filters }));
  show(
    into,
    form,
    filterSummary(filters),
    toolbar,
    h(
      'ol',
      {
        class: 'delivery-log',
        'aria-label': `Deliveries, newest first: attempts ${offset + 1} to ${last} of ${page.total}`,
      },
      ...rows.map((row) => deliveryItem(ctx, owner, row, reload)),
    ),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Delivery pages' },
      previous,
      h('span', {}, `Attempts ${offset + 1}–${last} of ${page.total}`),
      next,
    ),
  );
  restoreFocus();
}
