// Webhooks managed as code (jobhooks-as-code's [[namespace/identifier]] marker) in real Chromium: the name shows
// without the marker, a badge names the entry, and the edit form warns that the next apply undoes an edit.
import { ADMIN_TOKEN, createWebhook, webhookPath } from '../support/harness';
import { signIn, startUiHarness, type UiHarness } from '../support/browser';

let ui: UiHarness;
let managedId: string;
let plainId: string;
beforeAll(async () => {
  ui = await startUiHarness();
  managedId = (
    await createWebhook(ui.h, {
      name: 'Orders [[team-a/orders]]',
      client_url: 'https://example.com/orders',
      event_types: ['job.run.completed'],
    })
  ).id;
  plainId = (
    await createWebhook(ui.h, {
      name: 'Finance',
      client_url: 'https://example.com/finance',
      event_types: ['job.run.completed'],
    })
  ).id;
});
afterAll(async () => ui.close());

const card = (view: Awaited<ReturnType<UiHarness['open']>>, id: string) =>
  view.page.locator(`tr[data-webhook-id="${id}"]`);

test('the list and the webhook page show the name without the marker, and a badge naming namespace and identifier', async () => {
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  const managed = card(view, managedId);
  await managed.waitFor();
  // The name column: the name without the marker, and the badge beside it.
  expect(await managed.locator('a.name').textContent()).toBe('Orders');
  expect(await managed.locator('.badge.managed').textContent()).toBe('Managed as code: team-a/orders');
  expect(await card(view, plainId).locator('.badge.managed').count()).toBe(0);
  expect(await view.page.locator('main').textContent()).not.toContain('[[');
  await view.screenshot('managed-as-code-list');

  await managed.getByRole('link', { name: 'Orders' }).click();
  // The webhook's page replaces the list once it has loaded: its heading is waited for, not read at the click.
  await view.page.getByRole('heading', { level: 1, name: 'Orders', exact: true }).waitFor();
  await view.page.getByText('Managed as code: team-a/orders').waitFor();
  expect(await view.page.locator('main').textContent()).not.toContain('[[');
  expect(view.consoleErrors).toEqual([]);
});

test('the edit form warns that the next apply undoes the edit, and saving keeps the marker', async () => {
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await card(view, managedId).getByRole('link', { name: 'Edit' }).click();
  const form = view.page.getByRole('form', { name: 'Edit webhook Orders' });
  await form.waitFor();
  const warning = form.getByRole('note');
  expect(await warning.textContent()).toBe(
    'Managed as code (team-a/orders). jobhooks-as-code manages this webhook: its next apply puts back what its files declare and undoes changes made here. Change the files instead, unless this is a stopgap.',
  );
  const name = view.page.getByLabel('Name', { exact: true });
  expect(await name.inputValue()).toBe('Orders');
  await view.screenshot('managed-as-code-edit');
  await name.fill('Orders (paused)');
  await view.page.getByRole('button', { name: 'Save changes' }).click();
  await view.page.getByRole('status').getByText('Orders (paused) is saved.').waitFor();
  expect((await ui.h.call('GET', webhookPath(managedId))).json().data.name).toBe('Orders (paused) [[team-a/orders]]');

  await view.page.goto(`${ui.origin}/#/webhooks/${plainId}/edit`);
  await view.page.getByRole('form', { name: 'Edit webhook Finance' }).waitFor();
  expect(await view.page.getByRole('note').count()).toBe(0);
  expect(view.consoleErrors).toEqual([]);
});
