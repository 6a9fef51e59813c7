// Reactivating an archived webhook through PUT, as docs/decisions.md#5-archived-state-in-the-api describes, seen
// through the API.
import { createWebhook, type Harness, startHarness, webhookPath, validCreateBody } from '../support/harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** Archives the webhook the way the delivery pipeline will: through the store, in one update. */
async function archive(id: string) {
  await h.service.store.webhooks.update(1, id, (current) => ({
    ...current,
    active: false,
    consecutiveFailures: 1000,
    failingSince: 1,
    lastFailureAt: 2,
    archivedAt: 3,
    archivedReason: '1,000 consecutive failed deliveries',
  }));
}

test('an archived webhook reads as active false, archived true, with when and why', async () => {
  const hook = await createWebhook(h);
  await archive(hook.id);
  const read = (await h.call('GET', webhookPath(hook.id))).json().data;
  expect(read).toMatchObject({
    active: false,
    archived: true,
    archived_at: '3',
    archived_reason: '1,000 consecutive failed deliveries',
  });
  const listed = (await h.call('GET', '/api/v3/accounts/1/webhooks/subscriptions')).json().data[0];
  expect(listed).toMatchObject({ active: false, archived: true });
});

test('PUT with active true reactivates it', async () => {
  const hook = await createWebhook(h);
  await archive(hook.id);
  const updated = (await h.call('PUT', webhookPath(hook.id), { body: validCreateBody({ active: true }) })).json().data;
  expect(updated).toMatchObject({ active: true, archived: false });
  expect(updated.archived_at).toBeUndefined();
});

test('PUT with a new client_url reactivates it even with active false', async () => {
  const hook = await createWebhook(h);
  await archive(hook.id);
  const updated = (
    await h.call('PUT', webhookPath(hook.id), {
      body: validCreateBody({ active: false, client_url: 'https://new.example.com/' }),
    })
  ).json().data;
  expect(updated).toMatchObject({ active: true, archived: false, client_url: 'https://new.example.com/' });
});

test('PUT with active false and the same URL leaves it archived', async () => {
  const hook = await createWebhook(h);
  await archive(hook.id);
  const updated = (
    await h.call('PUT', webhookPath(hook.id), { body: validCreateBody({ active: false, name: 'renamed' }) })
  ).json().data;
  expect(updated).toMatchObject({ active: false, archived: true, name: 'renamed' });
});
