// The plan, pure: declared webhooks against the account's list, scoped to the files' namespace.
import { listEnvelope, markedName, readMarker, WebhookDetail } from '@jobhooks/client/contract';
import type { DeclaredValues } from '../../provider/as-code/src/declaration';
import { chooseImported, importedFileText } from '../../provider/as-code/src/import';
import type { Declaration } from '../../provider/as-code/src/load-declarations';
import { planChanges } from '../../provider/as-code/src/plan';

const values = (overrides: Partial<DeclaredValues> = {}): DeclaredValues => ({
  name: 'Hook',
  description: '',
  client_url: 'https://example.com/hook',
  event_types: ['job.run.completed', 'job.run.errored'],
  job_ids: [7, 42],
  active: true,
  max_requests_per_second: null,
  ...overrides,
});

const declared = (namespace: string | null, entries: Record<string, Partial<DeclaredValues>>): Declaration => ({
  namespace,
  files: ['webhooks.yml'],
  webhooks: Object.entries(entries).map(([identifier, overrides], index) => ({
    identifier,
    file: 'webhooks.yml',
    line: index + 1,
    values: values(overrides),
  })),
});

let created = 1_700_000_000_000_000;
const remote = (name: string, overrides: Partial<WebhookDetail> = {}): WebhookDetail => ({
  id: `wsu_${name.replace(/\W/g, '')}${created}`,
  account_identifier: 'act_1',
  name,
  description: '',
  job_ids: ['42', '7'],
  event_types: ['job.run.errored', 'job.run.completed'],
  client_url: 'https://example.com/hook',
  active: true,
  created_at: String((created += 1)),
  updated_at: String(created),
  http_status_code: '200',
  account_id: '1',
  archived: false,
  ...overrides,
});

test('markers: read back what is written; brackets that are no marker leave a webhook unmanaged', () => {
  expect(readMarker(markedName('Slack [[x]]', { namespace: 'ns', identifier: 'a.b-c_1' }))).toEqual({
    name: 'Slack [[x]]',
    marker: { namespace: 'ns', identifier: 'a.b-c_1' },
  });
  expect(readMarker('Hook [[one]]')).toEqual({ name: 'Hook', marker: { namespace: null, identifier: 'one' } });
  for (const name of ['Hook', 'Hook [[a b]]', 'Hook[[one]]', 'Hook [[a/b/c]]', 'Hook [[one]] ', 'Hook [[-x]]'])
    expect(readMarker(name)).toBeNull();
});

test('lists compare as sets, so the same webhook in another order is unchanged', () => {
  const plan = planChanges(declared('ns', { one: {} }), [remote('Hook [[ns/one]]')]);
  expect(plan).toEqual({ namespace: 'ns', changes: [], warnings: [], unchanged: 1, unchangedWebhooks: 1 });
});

test('creates, updates, reactivations and deletes, in that order, touching only the namespace of the files', () => {
  const others = [
    remote('Made in the UI'),
    remote('Other team [[billing/one]]'),
    remote('No namespace [[one]]'),
    remote('Not a marker [[ns one]]'),
  ];
  const archived = remote('Old [[ns/archived]]', {
    active: false,
    archived: true,
    archived_at: '1700000000000000',
    archived_reason: 'the endpoint answered 410 Gone',
    http_status_code: '410',
  });
  const changed = remote('Hook [[ns/changed]]', { client_url: 'https://example.com/moved', description: 'edited' });
  const removed = remote('Removed [[ns/removed]]');
  const [first, second] = [remote('Hook [[ns/twice]]'), remote('Hook [[ns/twice]]')];
  const plan = planChanges(
    declared('ns', { fresh: {}, changed: { description: '' }, archived: { name: 'Old' }, twice: {} }),
    [removed, second!, changed, archived, first!, ...others].reverse(),
  );
  expect(plan.changes).toEqual([
    { action: 'create', key: 'ns/fresh', values: values({ name: 'Hook [[ns/fresh]]' }) },
    {
      action: 'update',
      key: 'ns/changed',
      webhookId: changed.id,
      fields: [
        { field: 'description', old: 'edited', new: '' },
        { field: 'client_url', old: 'https://example.com/moved', new: 'https://example.com/hook' },
      ],
      values: values({ name: 'Hook [[ns/changed]]' }),
      currentUrl: 'https://example.com/moved',
    },
    {
      action: 'reactivate',
      key: 'ns/archived',
      webhookId: archived.id,
      fields: [{ field: 'active', old: false, new: true }],
      values: values({ name: 'Old [[ns/archived]]' }),
      currentUrl: 'https://example.com/hook',
    },
    // The older of two webhooks with one marker is kept; the newer one goes.
    { action: 'delete', key: 'ns/twice', webhookId: second!.id, name: 'Hook [[ns/twice]]', reason: 'duplicate' },
    { action: 'delete', key: 'ns/removed', webhookId: removed.id, name: 'Removed [[ns/removed]]', reason: 'removed' },
  ]);
  expect(plan.unchanged).toBe(1);
  expect(plan.warnings).toEqual([
    {
      key: 'ns/archived',
      webhookId: archived.id,
      message: 'archived since 2023-11-14T22:13:20.000000Z (the endpoint answered 410 Gone): apply reactivates it',
    },
    { key: 'ns/archived', webhookId: archived.id, message: 'its last delivery got HTTP 410' },
  ]);

  // Files without a namespace manage the unnamespaced markers only.
  const plain = planChanges(declared(null, {}), others);
  expect(plain.changes).toEqual([
    { action: 'delete', key: 'one', webhookId: others[2]!.id, name: 'No namespace [[one]]', reason: 'removed' },
  ]);
});

test('an archived webhook declared inactive is left as it is, with a warning; 599 and 5xx warn, 0 and 2xx do not', () => {
  const archived = remote('Hook [[a]]', { active: false, archived: true, http_status_code: '599' });
  const plan = planChanges(declared(null, { a: { active: false }, b: {}, c: {} }), [
    archived,
    remote('Hook [[b]]', { http_status_code: '0' }),
    remote('Hook [[c]]', { http_status_code: '503' }),
  ]);
  expect(plan.changes).toEqual([]);
  expect(plan.warnings.map((warning) => `${warning.key}: ${warning.message}`)).toEqual([
    'a: archived: it sends nothing until an entry with active: true reactivates it',
    'a: its last delivery got no response (599: timeout, refused connection, DNS or TLS failure)',
    'c: its last delivery got HTTP 503',
  ]);
});

test('import: identifiers from markers or names, unique; other namespaces left out; and `${` written `$${` so it is not read as a variable', () => {
  const webhooks = [
    remote('Slack alerts [[ns/slack]]'),
    remote('Other [[billing/x]]'),
    remote('Slack — Ålerts!', { client_url: 'https://example.com/${not-a-variable}', job_ids: [], active: false }),
    remote('slack alerts'),
    remote('!!!'),
    remote('y'.repeat(255)),
  ];
  const imported = chooseImported(webhooks, { namespace: 'ns', managedOnly: false });
  expect(imported.map((entry) => [entry.identifier, entry.managed])).toEqual([
    ['slack', true],
    ['slack-alerts', false],
    ['slack-alerts-2', false],
    ['webhook', false],
    ['y'.repeat(60), false],
  ]);
  // Cut so that the name and its marker fit the API's 255 characters.
  expect(markedName(imported[4]!.name, { namespace: 'ns', identifier: 'y'.repeat(60) })).toHaveLength(255);
  expect(chooseImported(webhooks, { namespace: 'ns', managedOnly: true }).map((entry) => entry.identifier)).toEqual([
    'slack',
  ]);

  const text = importedFileText(imported.slice(0, 2), 'ns', './schema.json');
  expect(text).toBe(
    [
      '# yaml-language-server: $schema=./schema.json',
      '',
      'namespace: ns',
      'webhooks:',
      '  slack:',
      '    name: Slack alerts',
      '    client_url: https://example.com/hook',
      '    event_types:',
      '      - job.run.errored',
      '      - job.run.completed',
      '    job_ids:',
      '      - 42',
      '      - 7',
      '  slack-alerts:',
      '    name: Slack — Ålerts!',
      '    client_url: https://example.com/$${not-a-variable}',
      '    event_types:',
      '      - job.run.errored',
      '      - job.run.completed',
      '    active: false',
      '',
    ].join('\n'),
  );
});

test("a list as dbt Cloud sends it (none of jobhooks' archive fields) is read and planned", () => {
  const fromDbtCloud = {
    id: 'wsu_12ab',
    account_identifier: 'act_12ab',
    name: 'Hook [[one]]',
    description: '',
    job_ids: ['42', '7'],
    event_types: ['job.run.completed', 'job.run.errored'],
    client_url: 'https://example.com/hook',
    active: true,
    created_at: '1700000000000000',
    updated_at: '1700000000000000',
    http_status_code: '0',
    account_id: '1',
  };
  const page = listEnvelope(WebhookDetail).parse({
    data: [fromDbtCloud],
    status: { code: 200 },
    extra: { pagination: { total_count: 1, count: 1 }, filters: { offset: 0, limit: 100 } },
  });
  expect(planChanges(declared(null, { one: {} }), page.data)).toEqual({
    namespace: null,
    changes: [],
    warnings: [],
    unchanged: 1,
    unchangedWebhooks: 1,
  });
});
