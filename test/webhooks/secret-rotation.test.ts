// Rotating a webhook's secret (jobhooks' own endpoint): the new secret is shown once; during the overlap every
// delivery carries both Standard Webhooks signatures and dbt's Authorization keeps the replaced secret, so a
// receiver of either scheme verifies every delivery while it moves to the new secret; ending the overlap, or its
// end in time, leaves the new secret alone.
import { Webhook } from 'standardwebhooks';
import { signingSecrets } from '../../service/src/delivery/signing-secrets';
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { type ReceivedRequest, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine, isGenuineStandard, standardWebhooksSecret } from '../support/signature';
import { waitFor } from '../support/wait';

let h: Harness;
let receiver: Receiver;
beforeEach(async () => {
  h = await startHarness();
  receiver = await startReceiver();
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

const verifiesDbt = (hmacSecret: string, request: ReceivedRequest) =>
  isGenuine(hmacSecret, request.body, request.headers.authorization);

async function deliverOne(runId: string): Promise<ReceivedRequest> {
  const before = receiver.requests.length;
  await ingest(h, 'job.run.completed', { runId });
  await waitFor(() => receiver.requests.length === before + 1, `the delivery of run ${runId}`);
  return receiver.requests.at(-1)!;
}

const rotate = async (id: string, body?: unknown) =>
  h.call('POST', `${webhookPath(id)}/secret/rotate`, body === undefined ? {} : { body });

test('across a rotation and the end of its overlap, receivers of both schemes verify every delivery', async () => {
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const oldSecret = hook.hmac_secret;

  const rotation = await rotate(hook.id);
  expect(rotation.statusCode).toBe(200);
  const { data } = rotation.json() as { data: { id: string; hmac_secret: string; previous_secret_expires_at: string } };
  const newSecret = data.hmac_secret;
  expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
  expect(newSecret).not.toBe(oldSecret);
  // The overlap's end, a day from now by default, is on the webhook; the secret is not.
  const detail = (await h.call('GET', webhookPath(hook.id))).json().data as Record<string, unknown>;
  expect(detail.previous_secret_expires_at).toBe(data.previous_secret_expires_at);
  expect(Number(data.previous_secret_expires_at) / 1_000_000 - Date.now() / 1000).toBeCloseTo(86_400, -1);
  expect(JSON.stringify(detail)).not.toContain(newSecret);

  // During the overlap: a Standard Webhooks receiver with either secret, a dbt receiver with the old one.
  const during = await deliverOne('1');
  const [first, second] = String(during.headers['webhook-signature']).split(' ');
  // New first: the signature of each secret, in that order.
  const signedAt = new Date(Number(during.headers['webhook-timestamp']) * 1000);
  const signatureBy = (secret: string) =>
    new Webhook(standardWebhooksSecret(secret)).sign(String(during.headers['webhook-id']), signedAt, during.body);
  expect([first, second]).toEqual([signatureBy(newSecret), signatureBy(oldSecret)]);
  expect([isGenuineStandard(newSecret, during), isGenuineStandard(oldSecret, during)]).toEqual([true, true]);
  expect([verifiesDbt(oldSecret, during), verifiesDbt(newSecret, during)]).toEqual([true, false]);

  // Ended by the user: the new secret alone, in both schemes.
  const ended = await h.call('DELETE', `${webhookPath(hook.id)}/secret/previous`);
  expect(ended.json()).toEqual({ data: { id: hook.id, previous_secret_expires_at: null }, status: { code: 200 } });
  expect((await h.call('GET', webhookPath(hook.id))).json().data).not.toHaveProperty('previous_secret_expires_at');
  const after = await deliverOne('2');
  expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
  expect([isGenuineStandard(newSecret, after), isGenuineStandard(oldSecret, after)]).toEqual([true, false]);
  expect([verifiesDbt(newSecret, after), verifiesDbt(oldSecret, after)]).toEqual([true, false]);
});

test('overlap_seconds: 0 switches at once; a rotation during an overlap drops the secret that was ending', async () => {
  const hook = await createWebhook(h, {
    client_url: `${receiver.url}/hook`,
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const now = (await rotate(hook.id, { overlap_seconds: 0 })).json().data as {
    hmac_secret: string;
    previous_secret_expires_at: null;
  };
  expect(now.previous_secret_expires_at).toBeNull();
  const first = await deliverOne('1');
  expect([verifiesDbt(now.hmac_secret, first), verifiesDbt(hook.hmac_secret, first)]).toEqual([true, false]);

  const second = (await rotate(hook.id, { overlap_seconds: 60 })).json().data as { hmac_secret: string };
  const third = (await rotate(hook.id, { overlap_seconds: 60 })).json().data as { hmac_secret: string };
  const delivered = await deliverOne('2');
  expect([third, second, now].map((rotated) => isGenuineStandard(rotated.hmac_secret, delivered))).toEqual([
    true,
    true,
    false,
  ]);
  expect(verifiesDbt(second.hmac_secret, delivered)).toBe(true);
});

test('a rotation with a bad body, of an unknown webhook or with a read-only token changes nothing', async () => {
  const hook = await createWebhook(h, { client_url: `${receiver.url}/hook` });
  const refusals = [
    [{ overlap_seconds: -1 }, 'overlap_seconds must not be negative'],
    [{ overlap_seconds: 604_801 }, 'overlap_seconds must be at most 604800 (7 days)'],
    [{ overlap_seconds: '60' }, 'overlap_seconds must be a number of seconds'],
    [{ overlap_seconds: 1.5 }, 'overlap_seconds must be a whole number of seconds'],
  ] as const;
  for (const [body, message] of refusals) {
    const response = await rotate(hook.id, body);
    expect(response.statusCode).toBe(400);
    expect(JSON.stringify(response.json())).toContain(message);
  }
  expect((await rotate('wsu_01M84ZZ3T1E6F80RHXY173RW68')).statusCode).toBe(404);
  const readOnly = await h.token('Read-Only');
  expect(
    (await h.call('POST', `${webhookPath(hook.id)}/secret/rotate`, { token: readOnly, body: {} })).statusCode,
  ).toBe(403);
  expect((await h.call('DELETE', `${webhookPath(hook.id)}/secret/previous`, { token: readOnly })).statusCode).toBe(403);
  const delivered = await (async () => {
    await h.call('PUT', webhookPath(hook.id), {
      body: { name: 'x', client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'] },
    });
    return deliverOne('9');
  })();
  expect(verifiesDbt(hook.hmac_secret, delivered)).toBe(true);
  expect(String(delivered.headers['webhook-signature']).split(' ')).toHaveLength(1);
});

test('the replaced secret signs until the overlap ends, and not from that microsecond on', () => {
  const open = (sealed: string) => `opened ${sealed}`;
  const sealed = { sealedSecret: 'new', previousSealedSecret: 'old', previousSecretUntil: 1_000 };
  expect(signingSecrets(sealed, 999, open)).toEqual({ current: 'opened new', previous: 'opened old' });
  expect(signingSecrets(sealed, 1_000, open)).toEqual({ current: 'opened new', previous: null });
  expect(signingSecrets({ ...sealed, previousSealedSecret: null, previousSecretUntil: null }, 0, open)).toEqual({
    current: 'opened new',
    previous: null,
  });
});

test('a create replayed by its Idempotency-Key after a rotation does not show the rotated secret', async () => {
  const body = { name: 'Keyed', client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'] };
  const headers = { 'idempotency-key': 'create-once-42' };
  const created = await h.call('POST', '/api/v3/accounts/1/webhooks/subscriptions', { body, headers });
  const { id, hmac_secret } = created.json().data as { id: string; hmac_secret: string };
  const replayed = await h.call('POST', '/api/v3/accounts/1/webhooks/subscriptions', { body, headers });
  expect(replayed.json().data.hmac_secret).toBe(hmac_secret);

  const rotated = (await rotate(id)).json().data as { hmac_secret: string };
  const afterRotation = await h.call('POST', '/api/v3/accounts/1/webhooks/subscriptions', { body, headers });
  expect(afterRotation.statusCode).toBe(409);
  expect(afterRotation.body).not.toContain(rotated.hmac_secret);
  expect(afterRotation.json().status.user_message).toContain('secret rotated since');
});

describe('a rotation under an Idempotency-Key', () => {
  const rotateOnce = (id: string, key: string, body: unknown = {}) =>
    h.call('POST', `${webhookPath(id)}/secret/rotate`, { body, headers: { 'idempotency-key': key } });
  type Rotated = { id: string; hmac_secret: string; previous_secret_expires_at: string | null };

  test('repeated (its answer lost) answers with the same secret and rotates nothing again: receivers keep verifying', async () => {
    const hook = await createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'] });
    const first = await rotateOnce(hook.id, 'rotate-2026-11', { overlap_seconds: 3600 });
    expect(first.statusCode).toBe(200);
    const again = await rotateOnce(hook.id, 'rotate-2026-11', { overlap_seconds: 3600 });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    const { hmac_secret: newSecret } = first.json().data as Rotated;
    // One rotation: the secret every dbt receiver holds still signs Authorization, and Standard Webhooks carries
    // the new secret and that one. A second rotation would have dropped it at once.
    const delivered = await deliverOne('1');
    expect(verifiesDbt(hook.hmac_secret, delivered)).toBe(true);
    expect([isGenuineStandard(newSecret, delivered), isGenuineStandard(hook.hmac_secret, delivered)]).toEqual([
      true,
      true,
    ]);
    // An overlap ended early since: the repeat says so.
    await h.call('DELETE', `${webhookPath(hook.id)}/secret/previous`);
    const afterEnd = (await rotateOnce(hook.id, 'rotate-2026-11', { overlap_seconds: 3600 })).json().data as Rotated;
    expect(afterEnd).toEqual({ id: hook.id, hmac_secret: newSecret, previous_secret_expires_at: null });
  });

  test('another request under the key, or a repeat after another rotation, is a 409 that shows no secret', async () => {
    const hook = await createWebhook(h, { client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'] });
    const other = await createWebhook(h, { client_url: `${receiver.url}/other`, event_types: ['job.run.completed'] });
    const rotated = (await rotateOnce(hook.id, 'k1', { overlap_seconds: 60 })).json().data as Rotated;
    for (const [id, body] of [
      [hook.id, { overlap_seconds: 61 }],
      [other.id, { overlap_seconds: 60 }],
    ] as const) {
      const refused = await rotateOnce(id, 'k1', body);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().status.user_message).toBe(
        'This Idempotency-Key was already used with a different request.',
      );
    }
    // A create's key is no rotation's.
    const createKey = { 'idempotency-key': 'k-create' };
    await h.call('POST', '/api/v3/accounts/1/webhooks/subscriptions', {
      body: { name: 'Keyed', client_url: `${receiver.url}/hook`, event_types: ['job.run.completed'] },
      headers: createKey,
    });
    expect((await rotateOnce(hook.id, 'k-create')).statusCode).toBe(409);

    await rotate(hook.id, { overlap_seconds: 60 });
    const replaced = await rotateOnce(hook.id, 'k1', { overlap_seconds: 60 });
    expect(replaced.statusCode).toBe(409);
    expect(replaced.json().status.user_message).toBe(
      'The secret made with this Idempotency-Key has been replaced by another rotation since: it is not shown again.',
    );
    expect(replaced.body).not.toContain(rotated.hmac_secret);
    const bad = await rotateOnce(hook.id, 'a key with spaces');
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('Idempotency-Key');
  });

  test("an operational endpoint's create takes the key, as a webhook's: the same endpoint and secret again", async () => {
    const body = { name: 'Ops', client_url: `${receiver.url}/ops`, event_types: ['webhook.archived'] };
    const headers = { 'idempotency-key': 'ops-create' };
    const path = '/api/v3/accounts/1/operational-endpoints';
    const first = await h.call('POST', path, { body, headers });
    const again = await h.call('POST', path, { body, headers });
    expect([first.statusCode, again.statusCode]).toEqual([201, 201]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);
    const list = (await h.call('GET', path)).json().data as unknown[];
    expect(list).toHaveLength(1);
    const other = await h.call('POST', path, { body: { ...body, name: 'Other' }, headers });
    expect(other.statusCode).toBe(409);
    // A webhook's create under the endpoint's key is another request.
    const asWebhook = await h.call('POST', '/api/v3/accounts/1/webhooks/subscriptions', {
      body: { name: 'Ops', client_url: `${receiver.url}/ops`, event_types: ['job.run.completed'] },
      headers,
    });
    expect(asWebhook.statusCode).toBe(409);
  });

  test("an operational endpoint's rotation takes the key too", async () => {
    const created = await h.call('POST', '/api/v3/accounts/1/operational-endpoints', {
      body: { name: 'Ops', client_url: `${receiver.url}/ops`, event_types: ['webhook.archived'] },
    });
    const { id } = created.json().data as { id: string };
    const path = `/api/v3/accounts/1/operational-endpoints/${id}/secret/rotate`;
    const headers = { 'idempotency-key': 'ops-rotation' };
    const first = await h.call('POST', path, { body: {}, headers });
    const again = await h.call('POST', path, { body: {}, headers });
    expect([first.statusCode, again.statusCode]).toEqual([200, 200]);
    expect(again.json()).toEqual(first.json());
  });
});

test('the ended overlap is forgotten by the store: its sealed secret is dropped', async () => {
  const hook = await createWebhook(h, { client_url: `${receiver.url}/hook` });
  await rotate(hook.id, { overlap_seconds: 60 });
  const row = () => h.service.store.webhooks.get(1, hook.id);
  expect((await row())?.previousSealedSecret).not.toBeNull();
  const until = (await row())!.previousSecretUntil!;
  expect(await h.service.store.webhooks.dropEndedSecrets(until - 1)).toBe(0);
  expect(await h.service.store.webhooks.dropEndedSecrets(until)).toBe(1);
  expect(await row()).toMatchObject({ previousSealedSecret: null, previousSecretUntil: null });
});
