// Operational endpoints in real Chromium: the page in the main navigation, adding one (its secret shown once),
// the event it then receives when a webhook is archived, verified with that secret, and deleting it; then one
// endpoint's page: editing it (the API's refusal at its field, reactivation), its delivery log with the filters,
// a delivery's request and responses and Redeliver, and rotating its secret.
import { ADMIN_TOKEN, createWebhook } from '../support/harness';
import { signIn, signInToOverview, startUiHarness, type UiHarness, type UiPage } from '../support/browser';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine, isGenuineStandard } from '../support/signature';
import { waitFor } from '../support/wait';
import { OPERATIONAL_EVENT_TYPES } from '@jobhooks/client/contract';

let ui: UiHarness;
let gone: Receiver;
let operations: Receiver;
beforeAll(async () => {
  ui = await startUiHarness();
  gone = await startReceiver(answer(410));
  operations = await startReceiver(answer(200));
});
afterAll(async () => {
  await gone.close();
  await operations.close();
  await ui.close();
});

test('add an operational endpoint, keep its secret, receive a verifiable webhook.archived, delete it', async () => {
  const view = await ui.open();
  await signInToOverview(view, ADMIN_TOKEN);
  await view.page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Operational endpoints' })
    .click();
  await view.page.getByRole('heading', { name: 'Operational endpoints', level: 1 }).waitFor();
  await view.page.getByText('No operational endpoint yet.').waitFor();

  const form = view.page.getByRole('form', { name: 'Add an operational endpoint' });
  await form.getByLabel('Name', { exact: true }).fill('On-call');
  await form.getByLabel('Endpoint URL').fill(`${operations.url}/ops`);
  for (const type of ['webhook.failing', 'webhook.circuit_opened', 'webhook.recovered', 'delivery.exhausted'])
    await form.getByLabel(type).uncheck();
  await form.getByRole('button', { name: 'Add operational endpoint' }).click();
  const dialog = view.page.getByRole('dialog');
  const secret = await dialog.getByLabel('Signing secret').inputValue();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  await dialog.getByRole('button', { name: 'I have stored the secret' }).click();
  const table = view.page.getByRole('table', { name: 'Operational endpoints' });
  const row = table.getByRole('row', { name: /On-call/ });
  await row.waitFor();
  expect(await row.textContent()).toContain('webhook.archived');
  expect(await row.textContent()).not.toContain('delivery.exhausted');
  await view.screenshot('operational-endpoints');

  const hook = await createWebhook(ui.h, {
    client_url: `${gone.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  await ingest(ui.h, 'job.run.completed', { runId: 'ui-run' });
  await waitFor(async () => operations.requests.length === 1, 'the operational event');
  const [request] = operations.requests;
  expect(JSON.parse(request!.body.toString('utf8'))).toMatchObject({
    type: 'webhook.archived',
    data: { webhook: { id: hook.id, ui_url: `/ui/#/webhooks/${hook.id}` } },
  });
  expect(isGenuine(secret, request!.body, request!.headers.authorization)).toBe(true);
  expect(isGenuineStandard(secret, request!)).toBe(true);

  await row.getByRole('button', { name: 'Delete' }).click();
  await view.page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await view.page.getByText('No operational endpoint yet.').waitFor();
  expect((await ui.h.call('GET', '/api/v3/accounts/1/operational-endpoints')).json().data).toEqual([]);
  expect(view.consoleErrors).toEqual([]);
  await view.context.close();
});

const ENDPOINTS = '/api/v3/accounts/1/operational-endpoints';

async function createEndpoint(name: string, receiver: Receiver): Promise<{ id: string; hmac_secret: string }> {
  const response = await ui.h.call('POST', ENDPOINTS, {
    body: { name, client_url: `${receiver.url}/ops`, event_types: ['webhook.archived'] },
  });
  expect(response.statusCode).toBe(201);
  return response.json().data;
}

async function endpointOf(id: string): Promise<Record<string, unknown>> {
  return (await ui.h.call('GET', `${ENDPOINTS}/${id}`)).json().data;
}

/**
 * An operational endpoint archived by its own first delivery: a webhook archived by a 410 makes a webhook.archived,
 * which the endpoint's receiver answers 410 too. Its log then holds that one failed delivery.
 */
async function archivedEndpoint(name: string, receiver: Receiver): Promise<string> {
  receiver.respondWith(answer(410));
  const { id } = await createEndpoint(name, receiver);
  await createWebhook(ui.h, { client_url: `${gone.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
  await ingest(ui.h, 'job.run.completed', { runId: `run-${name}` });
  await waitFor(async () => (await endpointOf(id))['archived'] === true, 'the operational endpoint to be archived');
  return id;
}

/**
 * Makes an endpoint named `name` with `prepare`, given a receiver of its own, then signs in and opens the endpoint's
 * page from the list, as a person would, and runs `test` there. The page must log no error; all is closed after.
 */
async function onEndpointPage<T>(
  name: string,
  prepare: (receiver: Receiver) => Promise<T>,
  test: (view: UiPage, receiver: Receiver, prepared: T) => Promise<void>,
): Promise<void> {
  const receiver = await startReceiver();
  try {
    const prepared = await prepare(receiver);
    const view = await ui.open();
    await signIn(view, ADMIN_TOKEN);
    await view.page.goto(`${ui.origin}/#/operational`);
    await view.page.getByRole('table', { name: 'Operational endpoints' }).getByRole('link', { name }).click();
    await view.page.getByRole('heading', { name, level: 1 }).waitFor();
    await test(view, receiver, prepared);
    expect(view.consoleErrors).toEqual([]);
    await view.context.close();
  } finally {
    await receiver.close();
  }
}

test("edit an archived operational endpoint: the API's refusal shown at its fields, then a new URL reactivates it", async () => {
  const archived = (receiver: Receiver) => archivedEndpoint('Pager', receiver);
  await onEndpointPage('Pager', archived, async (view, receiver, id) => {
    await view.page.getByRole('link', { name: 'Edit' }).click();
    const form = view.page.getByRole('form', { name: 'Edit operational endpoint Pager' });
    await form.getByText('Changing the URL reactivates this archived operational endpoint.').waitFor();
    // An operational endpoint's fields only: its event types, no job ids, no rate.
    expect(await form.getByLabel('webhook.archived').isChecked()).toBe(true);
    expect(await form.getByLabel('delivery.exhausted').isChecked()).toBe(false);
    await expect(form.getByLabel(/job\.run/).count()).resolves.toBe(0);
    await expect(form.getByLabel(/Job ids|Max requests/).count()).resolves.toBe(0);

    // A save the API refuses: its own messages, at the fields they name; nothing changes.
    await form.getByLabel('Endpoint URL').fill('ftp://127.0.0.1/ops');
    await form.getByLabel('webhook.archived').uncheck();
    await form.getByRole('button', { name: 'Save changes' }).click();
    const errors = form.locator('.field-error:not([hidden])');
    await errors.nth(1).waitFor();
    const refused = await ui.h.call('PUT', `${ENDPOINTS}/${id}`, {
      body: { name: 'Pager', description: '', client_url: 'ftp://127.0.0.1/ops', event_types: [], active: false },
    });
    expect(refused.statusCode).toBe(400);
    const fieldErrors = refused.json().extra.field_errors as Record<string, string[]>;
    expect(await errors.allTextContents()).toEqual([
      fieldErrors['client_url']!.join(' '),
      fieldErrors['event_types']!.join(' '),
    ]);
    expect(await form.getByLabel('Endpoint URL').getAttribute('aria-invalid')).not.toBeNull();
    expect(await endpointOf(id)).toMatchObject({ name: 'Pager', archived: true });
    await view.screenshot('operational-edit-refused');

    // A new URL reactivates it, as for a webhook, though Active was left as the archive set it.
    await form.getByLabel('Name').fill('Pager duty');
    await form.getByLabel('Description').fill('Pages the on-call engineer');
    await form.getByLabel('Endpoint URL').fill(`${receiver.url}/new-home`);
    await form.getByLabel('webhook.archived').check();
    await form.getByLabel('delivery.exhausted').check();
    expect(await form.getByLabel(/Active/).isChecked()).toBe(false);
    await form.getByRole('button', { name: 'Save changes' }).click();
    await view.page.getByRole('heading', { name: 'Pager duty', level: 1 }).waitFor();
    expect(await view.page.locator('article .facts').textContent()).toContain('Active');
    expect(await endpointOf(id)).toMatchObject({
      name: 'Pager duty',
      description: 'Pages the on-call engineer',
      client_url: `${receiver.url}/new-home`,
      event_types: ['webhook.archived', 'delivery.exhausted'],
      active: true,
      archived: false,
    });
  });
});

test("an operational endpoint's log: Active reactivates it, filters, a delivery as sent, and Redeliver", async () => {
  const archived = (receiver: Receiver) => archivedEndpoint('Escalations', receiver);
  await onEndpointPage('Escalations', archived, async (view, receiver, id) => {
    const log = view.page.getByRole('list', { name: /Deliveries, newest first/ });
    const row = log.getByRole('listitem').filter({ hasText: 'webhook.archived' });
    await row.waitFor();
    expect(await row.locator('.status-code').textContent()).toContain('410');
    expect(await row.locator('.badge.result').textContent()).toBe('Failed');

    // The filters offer the operational event types, and filter the endpoint's own log.
    const filters = view.page.getByRole('search', { name: 'Filter deliveries' });
    const types = await filters.getByLabel('Event type').locator('option').allTextContents();
    expect(types).toEqual(['All', ...OPERATIONAL_EVENT_TYPES]);
    await filters.getByLabel('Status').selectOption('succeeded');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await view.page.getByText('No attempts match these filters.').waitFor();
    await filters.getByLabel('Status').selectOption('failed');
    await filters.getByLabel('Event type').selectOption('webhook.archived');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await view.page.getByText('Showing failed attempts of webhook.archived.').waitFor();
    await row.waitFor();

    // The delivery as sent: the operational event to the endpoint's URL, and the 410 it answered.
    await row.getByRole('button', { name: /Request and responses/ }).click();
    const detail = view.page.getByRole('dialog', { name: 'Delivery of webhook.archived' });
    expect(await detail.locator('code.url').textContent()).toBe(`POST ${receiver.url}/ops`);
    const [sent] = receiver.requests;
    expect(JSON.parse((await detail.getByRole('region', { name: 'Request body' }).textContent()) ?? '')).toEqual(
      JSON.parse(sent!.body.toString('utf8')),
    );
    expect(await detail.getByRole('region', { name: 'Attempt 1' }).textContent()).toContain('410');
    await detail.getByRole('button', { name: 'Close' }).click();

    // An archived endpoint is not redelivered to (the API refuses): Active on the edit form reactivates it first.
    await view.page.getByRole('link', { name: 'Edit' }).click();
    const form = view.page.getByRole('form', { name: 'Edit operational endpoint Escalations' });
    await form.getByLabel(/Active/).check();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await view.page.getByRole('heading', { name: 'Escalations', level: 1 }).waitFor();
    expect(await endpointOf(id)).toMatchObject({ active: true, archived: false, client_url: `${receiver.url}/ops` });

    receiver.respondWith(answer(200));
    await row.getByRole('button', { name: /Redeliver/ }).click();
    await view.page.getByRole('status').getByText('Redelivered: the endpoint answered HTTP 200.').waitFor();
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.body.equals(sent!.body)).toBe(true);
    await expect(row.getByRole('button', { name: /Redeliver/ }).count()).resolves.toBe(0);
    expect(await row.locator('.badge.result').textContent()).toBe('Succeeded');
    await view.screenshot('operational-deliveries');
  });
});

test("rotate an operational endpoint's secret: the new one shown once, the old one signing through the overlap", async () => {
  const create = (receiver: Receiver) => createEndpoint('Rotated', receiver);
  await onEndpointPage('Rotated', create, async (view, receiver, created) => {
    await view.page.getByRole('button', { name: 'Rotate secret' }).click();
    const ask = view.page.getByRole('dialog', { name: 'Rotate the secret of Rotated?' });
    await ask.getByLabel('Overlap in hours').fill('2');
    const rotatedAt = Date.now();
    await ask.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = view.page.getByRole('dialog', { name: 'New signing secret of Rotated' });
    const secret = await shown.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(secret).not.toBe(created.hmac_secret);
    expect(await shown.textContent()).toContain('The old secret keeps signing until');

    const until = Number((await endpointOf(created.id))['previous_secret_expires_at']) / 1000;
    expect(Math.abs(until - (rotatedAt + 2 * 3600 * 1000))).toBeLessThan(60_000);
    await shown.getByRole('button', { name: 'I have stored the secret' }).click();
    await view.page.getByRole('status').getByText('The secret of Rotated is rotated.').waitFor();
    await view.page
      .locator('article .facts')
      .getByText(/Rotated\. Until/)
      .waitFor();
    // The overlap runs its course: there is no early end for an operational endpoint's.
    await expect(view.page.getByRole('button', { name: 'End overlap now' }).count()).resolves.toBe(0);

    // The next operational event is signed by the new secret (and, through the overlap, by the old one too).
    await createWebhook(ui.h, { client_url: `${gone.url}/hook`, event_types: ['job.run.completed'], job_ids: [] });
    await ingest(ui.h, 'job.run.completed', { runId: 'run-rotated' });
    await waitFor(async () => receiver.requests.length === 1, 'the operational event');
    expect(isGenuineStandard(secret, receiver.requests[0]!)).toBe(true);
    expect(isGenuineStandard(created.hmac_secret, receiver.requests[0]!)).toBe(true);
  });
});
