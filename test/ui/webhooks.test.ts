// Creating, testing, editing, switching off and deleting webhooks in real Chromium, against a real
// service and a real receiver on 127.0.0.1.
import { ACCOUNT_ID, ADMIN_TOKEN, createWebhook, webhookPath, webhooksPath } from '../support/harness';
import { signIn, startUiHarness, type UiHarness, type UiPage } from '../support/browser';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';

let ui: UiHarness;
let receiver: Receiver;
beforeAll(async () => {
  ui = await startUiHarness();
  receiver = await startReceiver(answer(200, 'ok'));
});
afterAll(async () => {
  await receiver.close();
  await ui.close();
});

async function listWebhooks(): Promise<Array<{ id: string; name: string; active: boolean; job_ids: string[] }>> {
  return (await ui.h.call('GET', `${webhooksPath()}?limit=100`)).json().data;
}

async function fillForm(view: UiPage, fields: { name?: string; url?: string; jobIds?: string }): Promise<void> {
  if (fields.name !== undefined) await view.page.getByLabel('Name', { exact: true }).fill(fields.name);
  if (fields.url !== undefined) await view.page.getByLabel('Endpoint URL').fill(fields.url);
  if (fields.jobIds !== undefined) await view.page.getByLabel('Job ids').fill(fields.jobIds);
}

/** The text of the error shown for a field, found through the field's aria-describedby. */
async function errorOf(view: UiPage, label: string): Promise<string> {
  return view.page.getByLabel(label, { exact: true }).evaluate((field) => {
    const ids = (field.getAttribute('aria-describedby') ?? '').split(' ');
    return ids
      .map((id) => document.getElementById(id))
      .filter((node) => node?.classList.contains('field-error'))
      .map((node) => node?.textContent)
      .join('');
  });
}

test('create shows the API’s validation messages at their fields and creates nothing until they are fixed', async () => {
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await view.page.getByRole('link', { name: 'New webhook' }).click();
  await fillForm(view, { name: '   ', url: 'ftp://example.com/hooks', jobIds: '12, twelve' });
  await view.page.getByLabel('job.run.completed').uncheck();
  await view.page.getByRole('button', { name: 'Create webhook' }).click();

  await view.page.locator('.field-error:not([hidden])').first().waitFor();
  expect(await errorOf(view, 'Name')).toBe('name must not be blank');
  expect(await errorOf(view, 'Endpoint URL')).toBe('client_url must use http or https');
  expect(await errorOf(view, 'Job ids')).toBe('job ids must be numbers');
  const eventTypesError = await view.page.locator('fieldset .field-error').textContent();
  expect(eventTypesError).toBe('event_types needs at least one event type');
  expect(await view.page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).not.toBeNull();
  // Focus goes to the first field in error, so a keyboard user lands on it.
  expect(await view.page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe('name');
  await view.screenshot('create-validation');
  expect(await listWebhooks()).toEqual([]);
});

test('create shows the signing secret once, and it is the secret that signs deliveries', async () => {
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await view.page.getByRole('link', { name: 'New webhook' }).click();
  await fillForm(view, { name: 'Orders', url: `${receiver.url}/orders`, jobIds: '' });
  await view.page.getByLabel('job.run.errored').check();
  await view.page.getByRole('button', { name: 'Create webhook' }).click();

  const dialog = view.page.getByRole('dialog', { name: 'Signing secret of Orders' });
  await dialog.waitFor();
  await expect(dialog.textContent()).resolves.toContain('cannot be shown again');
  const secret = await dialog.getByLabel('Signing secret').inputValue();
  expect(secret.length).toBeGreaterThanOrEqual(32);
  await view.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.origin });
  await dialog.getByRole('button', { name: 'Copy secret' }).click();
  await dialog.getByText('Copied to the clipboard.').waitFor();
  expect(await view.page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await view.screenshot('secret-once');
  await dialog.getByRole('button', { name: 'I have stored the secret' }).click();

  // The details page of the new webhook; the secret is gone from the page and is not shown again.
  await view.page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
  expect(await view.page.content()).not.toContain(secret);
  await expect(view.page.getByText('All jobs').count()).resolves.toBe(1);
  const [created] = await listWebhooks();
  expect(created?.name).toBe('Orders');

  // Send test: the receiver gets a delivery signed with the secret shown, and the page says so.
  receiver.requests.length = 0;
  await view.page.getByRole('button', { name: 'Send test' }).click();
  await view.page.getByText('Test delivered: the endpoint answered HTTP 200.').waitFor();
  const [request] = receiver.requests;
  expect(request?.url).toBe('/orders');
  expect(isGenuine(secret, request!.body, request!.headers.authorization)).toBe(true);
  await view.screenshot('send-test');
});

test('a failing test send shows the endpoint’s answer', async () => {
  const failing = await startReceiver(answer(503, 'down for maintenance'));
  const { id } = await createWebhook(ui.h, {
    name: 'Flaky',
    client_url: `${failing.url}/`,
    event_types: ['job.run.completed'],
  });
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await view.page.goto(`${ui.origin}/#/webhooks/${id}`);
  await view.page.getByRole('button', { name: 'Send test' }).click();
  await view.page.getByText(/Test failed \(HTTP 503\)/).waitFor();
  await view.screenshot('send-test-failed');
  await failing.close();
  await ui.h.call('DELETE', webhookPath(id));
});

test('edit changes the webhook, the switch turns it off and on, and delete asks first', async () => {
  const { id } = await createWebhook(ui.h, {
    name: 'Finance',
    client_url: `${receiver.url}/finance`,
    event_types: ['job.run.completed'],
  });
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  const card = view.page.locator(`[data-webhook-id="${id}"]`);
  await card.getByRole('link', { name: 'Edit' }).click();
  await fillForm(view, { name: 'Finance models', jobIds: '12, 34' });
  await view.page.getByRole('button', { name: 'Save changes' }).click();
  await view.page.getByRole('heading', { name: 'Finance models', level: 1 }).waitFor();
  await view.page.getByRole('status').getByText('Finance models is saved.').waitFor();
  expect((await listWebhooks()).find((webhook) => webhook.id === id)).toMatchObject({
    name: 'Finance models',
    job_ids: ['12', '34'],
  });

  await view.page.getByRole('link', { name: '← All webhooks' }).click();
  const toggle = card.getByRole('switch');
  expect(await toggle.getAttribute('aria-checked')).toBe('true');
  await toggle.click();
  await card.locator('[role="switch"][aria-checked="false"]').waitFor();
  expect((await listWebhooks()).find((webhook) => webhook.id === id)?.active).toBe(false);
  // The keyboard works the switch too.
  await card.getByRole('switch').press('Enter');
  await card.locator('[role="switch"][aria-checked="true"]').waitFor();
  expect((await listWebhooks()).find((webhook) => webhook.id === id)?.active).toBe(true);

  await card.getByRole('button', { name: 'Delete' }).click();
  const confirm = view.page.getByRole('dialog', { name: 'Delete Finance models?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect((await listWebhooks()).some((webhook) => webhook.id === id)).toBe(true);
  await card.getByRole('button', { name: 'Delete' }).click();
  await confirm.getByRole('button', { name: 'Delete webhook' }).click();
  await view.page.getByRole('status').getByText('Finance models is deleted.').waitFor();
  await card.waitFor({ state: 'detached' });
  expect((await listWebhooks()).some((webhook) => webhook.id === id)).toBe(false);
  await view.screenshot('deleted');
});

test("the delivery rate (jobhooks' own): refused at its field when out of range, set, shown, kept by a pause, removed", async () => {
  const existing = await listWebhooks();
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  const rateField = view.page.getByLabel('Max requests per second');
  const rateFact = view.page.locator('dt:text-is("Rate limit") + dd');
  await view.page.getByRole('link', { name: 'New webhook' }).click();
  await fillForm(view, { name: 'Paced', url: `${receiver.url}/paced` });
  await rateField.fill('0');
  await view.page.getByRole('button', { name: 'Create webhook' }).click();
  await view.page.locator('.field-error:not([hidden])').waitFor();
  expect(await errorOf(view, 'Max requests per second')).toBe(
    'max_requests_per_second must be a whole number from 1 to 100, or null for no limit',
  );
  expect(await listWebhooks()).toEqual(existing);

  await rateField.fill('5');
  await view.page.getByRole('button', { name: 'Create webhook' }).click();
  await view.page
    .getByRole('dialog', { name: 'Signing secret of Paced' })
    .getByRole('button', { name: 'I have stored the secret' })
    .click();
  await view.page.getByRole('heading', { name: 'Paced', level: 1 }).waitFor();
  expect(await rateFact.textContent()).toBe('At most 5 requests per second');
  const created = (await listWebhooks()).find((webhook) => webhook.name === 'Paced');
  const read = async () => (await ui.h.call('GET', webhookPath(created!.id))).json().data;
  expect((await read()).max_requests_per_second).toBe(5);

  // Switching the webhook off and on again sends every field back: the rate stays.
  const toggle = view.page.getByRole('switch', { name: 'Active: Paced' });
  await toggle.click();
  await view.page.locator('[role="switch"][aria-checked="false"]').waitFor();
  expect(await read()).toMatchObject({ active: false, max_requests_per_second: 5 });
  expect(await rateFact.textContent()).toBe('At most 5 requests per second');
  await view.page.getByRole('switch', { name: 'Active: Paced' }).click();
  await view.page.locator('[role="switch"][aria-checked="true"]').waitFor();
  expect(await read()).toMatchObject({ active: true, max_requests_per_second: 5 });
  await view.screenshot('rate-limit');

  // The edit form shows the rate; emptied, the webhook has none.
  await view.page.getByRole('link', { name: 'Edit' }).click();
  expect(await rateField.inputValue()).toBe('5');
  await rateField.fill('');
  await view.page.getByRole('button', { name: 'Save changes' }).click();
  await view.page.getByRole('status').getByText('Paced is saved.').waitFor();
  expect(await rateFact.textContent()).toBe('None');
  expect(await read()).not.toHaveProperty('max_requests_per_second');
  await ui.h.call('DELETE', webhookPath(created!.id));
});

test('refusals only the server can decide show at the field (a private address) or atop the form (the webhook limit)', async () => {
  // A service of its own: private addresses refused, and at most one webhook per account.
  const strict = await startUiHarness({
    env: { JOBHOOKS_ALLOW_PRIVATE_URLS: '0', JOBHOOKS_MAX_SUBSCRIPTIONS_PER_ACCOUNT: '1' },
  });
  try {
    const view = await strict.open();
    await signIn(view, ADMIN_TOKEN);
    await view.page.getByRole('link', { name: 'New webhook' }).click();
    await fillForm(view, { name: 'Internal', url: 'http://10.0.0.8/hooks' });
    await view.page.getByRole('button', { name: 'Create webhook' }).click();
    await view.page.locator('.field-error:not([hidden])').waitFor();
    expect(await errorOf(view, 'Endpoint URL')).toBe(
      'client_url must not point at a private, loopback, link-local or otherwise non-public address; to allow it for local development and tests, start jobhooks with JOBHOOKS_ALLOW_PRIVATE_URLS=1.',
    );

    await createWebhook(strict.h, {
      name: 'First',
      client_url: 'https://example.com/first',
      event_types: ['job.run.completed'],
    });
    await fillForm(view, { url: 'https://example.com/second' });
    await view.page.getByRole('button', { name: 'Create webhook' }).click();
    const formError = view.page.locator('form .form-error');
    await view.page.locator('form .form-error:not([hidden])').waitFor();
    expect(await formError.textContent()).toBe(`Account ${ACCOUNT_ID} already has 1 webhooks, the most it may have.`);
    expect(await errorOf(view, 'Endpoint URL')).toBe('');
    await view.screenshot('create-refused-by-limit');
  } finally {
    await strict.close();
  }
});
