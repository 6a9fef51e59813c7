// The webhooks table's model: states, the view in the URL, search, filters and sorts, and how rates are worded.
// Pure functions, no browser needed.
import type { WebhookStatisticsSummary } from '@jobhooks/client/contract/statistics';
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import {
  DEFAULT_VIEW,
  queryOfView,
  rateText,
  rowOf,
  viewOfQuery,
  visibleRows,
} from '../../service/src/ui/webhook-rows';

function webhook(id: string, name: string, overrides: Partial<WebhookDetail> = {}): WebhookDetail {
  return {
    id,
    account_identifier: 'act_1',
    account_id: '1',
    name,
    description: '',
    job_ids: [],
    event_types: ['job.run.completed'],
    client_url: `https://${id}.example.com/hook`,
    active: true,
    archived: false,
    created_at: '1',
    updated_at: '1',
    http_status_code: '200',
    delivery_circuit: 'closed',
    ...overrides,
  } as WebhookDetail;
}

function stats(id: string, rate: number | null, failingSince: string | null = null): WebhookStatisticsSummary {
  return {
    webhook_id: id,
    totals: {
      attempts_succeeded: 1,
      attempts_failed: 0,
      deliveries_succeeded: rate === null ? 0 : 4,
      deliveries_failed: 0,
      p50_ms: null,
      p95_ms: null,
      success_rate: rate,
    },
    trend_succeeded: [],
    trend_failed: [],
    pending: 0,
    due: 0,
    failing_since: failingSince,
  };
}

const rows = [
  rowOf(webhook('a', 'Orders [[team/orders]]'), stats('a', 1)),
  rowOf(webhook('b', 'billing'), stats('b', 0.25, '100')),
  rowOf(webhook('c', 'CRM', { archived: true, active: false }), stats('c', 0, '50')),
  rowOf(webhook('d', 'Search', { delivery_circuit: 'open' }), stats('d', 0.5, '70')),
  rowOf(webhook('e', 'Idle', { active: false }), stats('e', null)),
];
const names = (view: Partial<typeof DEFAULT_VIEW>) =>
  visibleRows(rows, { ...DEFAULT_VIEW, ...view }).map((r) => r.name);

test('each webhook has one state; failing is a failed last attempt, never for an archived webhook', () => {
  expect(rows.map((r) => [r.name, r.state, r.failing])).toEqual([
    ['Orders', 'active', false],
    ['billing', 'active', true],
    ['CRM', 'archived', false],
    ['Search', 'paused', true],
    ['Idle', 'inactive', false],
  ]);
});

test('a probing circuit is a state of its own, which the paused filter shows with the open ones', () => {
  const probing = rowOf(webhook('f', 'Probe', { delivery_circuit: 'probing' }), stats('f', 0, '90'));
  expect([probing.state, probing.failing]).toEqual(['probing', true]);
  expect(visibleRows([...rows, probing], { ...DEFAULT_VIEW, filter: 'paused' }).map((r) => r.name)).toEqual([
    'Probe',
    'Search',
  ]);
});

test('search matches the shown name or the URL, case-insensitive; filters pick by state', () => {
  expect(names({ q: 'ORD' })).toEqual(['Orders']);
  expect(names({ q: 'team/orders' })).toEqual([]);
  expect(names({ q: 'c.example' })).toEqual(['CRM']);
  expect(names({ filter: 'failing' })).toEqual(['billing', 'Search']);
  expect(names({ filter: 'paused' })).toEqual(['Search']);
  expect(names({ filter: 'archived' })).toEqual(['CRM']);
  expect(names({ filter: 'inactive' })).toEqual(['Idle']);
});

test('every column sorts both ways; no attempts sorts as better than any rate', () => {
  expect(names({})).toEqual(['billing', 'CRM', 'Idle', 'Orders', 'Search']);
  expect(names({ dir: 'desc' })).toEqual(['Search', 'Orders', 'Idle', 'CRM', 'billing']);
  expect(names({ sort: 'rate' })).toEqual(['CRM', 'billing', 'Search', 'Orders', 'Idle']);
  expect(names({ sort: 'deliveries', dir: 'desc' })).toEqual(['billing', 'CRM', 'Orders', 'Search', 'Idle']);
  expect(names({ sort: 'state', dir: 'desc' })).toEqual(['CRM', 'Idle', 'Search', 'billing', 'Orders']);
});

test('the view goes into the URL without its defaults, and comes back from it; unknown values are the defaults', () => {
  expect(queryOfView(DEFAULT_VIEW)).toBe('');
  const view = { q: 'a b&c', filter: 'failing', sort: 'rate', dir: 'desc' } as const;
  expect(queryOfView(view)).toBe('?q=a+b%26c&state=failing&sort=rate&dir=desc');
  expect(viewOfQuery(queryOfView(view).slice(1))).toEqual(view);
  expect(viewOfQuery('state=broken&sort=nope&dir=sideways')).toEqual(DEFAULT_VIEW);
});

test('rates read in percent, rounded down so that nothing short of all reads as 100 %', () => {
  expect([rateText(1), rateText(0), rateText(0.9996), rateText(3 / 29), rateText(null)]).toEqual([
    '100 %',
    '0 %',
    '99.9 %',
    '10.3 %',
    '—',
  ]);
});
