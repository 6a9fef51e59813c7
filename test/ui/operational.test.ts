// Operational endpoints in real Chromium: the page in the main navigation, adding one (its secret shown once),
// the event it then receives when a webhook is archived, verified with that secret, and deleting it.
import { ADMIN_TOKEN, createWebhook } from '../support/harness';
import { signInToOverview, startUiHarness, type UiHarness } from '../support/browser';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine, isGenuineStandard } from '../support/signature';
import { waitFor } from '../support/wait';

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
