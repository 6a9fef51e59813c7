// The provider's pure parts: Terraform values on the wire (unknowns in both encodings, the JSON fallback) and
// the plan rules, as tables; and the plugin's refusal to run outside Terraform.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { encode, ExtData, decode } from '@msgpack/msgpack';
import { rotationIdempotencyKey } from '@jobhooks/client';
import { resolveProviderSettings, validateProviderConfig } from '../../provider/terraform/src/provider-config';
import { terraformOnPath } from '../support/terraform';
import { decodeDynamic, encodeDynamic, isWhollyKnown, UNKNOWN } from '../../provider/terraform/src/values';
import {
  applyWebhook,
  CLIENT_URL_WHILE_INACTIVE,
  planWebhook,
  upgradeWebhookState,
  validateWebhookConfig,
  type WebhookApi,
} from '../../provider/terraform/src/webhook-resource';

const msgpack = (value: unknown) => ({ msgpack: encode(value) });
const refined = new ExtData(
  12,
  encode(
    new Map<number, unknown>([
      [1, false],
      [2, 'https://'],
    ]),
  ),
);

test('any msgpack extension decodes as unknown: plain (code 0) and refined (code 12, refinements ignored)', () => {
  const decoded = decodeDynamic(
    msgpack({ name: 'x', client_url: refined, job_ids: [1, new ExtData(0, new Uint8Array([0]))], active: null }),
  );
  expect(decoded).toEqual({ name: 'x', client_url: UNKNOWN, job_ids: [1, UNKNOWN], active: null });
  expect(isWhollyKnown(decoded)).toBe(false);
  expect(isWhollyKnown({ name: 'x', job_ids: [1, 2] })).toBe(true);
});

test('unknowns are written in the plain form, code 0', () => {
  const wire = decode(encodeDynamic({ id: UNKNOWN, name: 'x' }).msgpack) as Record<string, unknown>;
  expect(wire.name).toBe('x');
  expect(wire.id).toBeInstanceOf(ExtData);
  expect((wire.id as ExtData).type).toBe(0);
});

test('JSON is the fallback when msgpack is empty (stored state), and nothing decodes as null', () => {
  expect(decodeDynamic({ msgpack: new Uint8Array(), json: Buffer.from('{"id":"wsu_1","job_ids":[3]}') })).toEqual({
    id: 'wsu_1',
    job_ids: [3],
  });
  expect(decodeDynamic(null)).toBeNull();
});

test('validation skips what is unknown and reports what is known, at the attribute', () => {
  expect(
    validateWebhookConfig({ name: 'x', client_url: UNKNOWN, event_types: ['job.run.completed'], job_ids: [UNKNOWN] }),
  ).toEqual([]);
  const problems = validateWebhookConfig({
    name: 'x',
    client_url: 'not a url',
    event_types: ['job.run.completed'],
    job_ids: null,
  });
  expect(problems).toEqual([
    expect.objectContaining({
      severity: 'ERROR',
      summary: 'Invalid client_url',
      attribute: { steps: [{ attribute_name: 'client_url' }] },
    }),
  ]);
});

const state = {
  id: 'wsu_1',
  webhook_id: 'wsu_1',
  name: 'n',
  description: '',
  client_url: 'https://example.com/a',
  event_types: ['job.run.completed'],
  job_ids: null,
  active: true,
  http_status_code: '200',
  hmac_secret: 'secret',
  account_identifier: 'act_1',
  secret_rotation: 'a' as string | null,
  secret_overlap_seconds: 60 as number | null,
  previous_secret_expires_at: null as string | null,
};
const config = {
  ...state,
  id: null,
  webhook_id: null,
  http_status_code: null,
  hmac_secret: null,
  account_identifier: null,
  previous_secret_expires_at: null,
};

test.each([
  [
    'create: computed values unknown, omitted optionals defaulted',
    null,
    { ...config, description: null, active: null },
    {
      ...state,
      id: UNKNOWN,
      webhook_id: UNKNOWN,
      http_status_code: UNKNOWN,
      hmac_secret: UNKNOWN,
      account_identifier: UNKNOWN,
      previous_secret_expires_at: null,
    },
  ],
  ['no change: the prior state, status included', state, config, state],
  [
    'a new secret_rotation: the secret and its overlap unknown, nothing else',
    { ...state, previous_secret_expires_at: '1700000000000000' },
    { ...config, secret_rotation: 'b' },
    { ...state, secret_rotation: 'b', hmac_secret: UNKNOWN, previous_secret_expires_at: UNKNOWN },
  ],
  [
    'a secret_rotation set where there was none rotates',
    { ...state, secret_rotation: null },
    config,
    { ...state, hmac_secret: UNKNOWN, previous_secret_expires_at: UNKNOWN },
  ],
  [
    'removing secret_rotation, or changing only secret_overlap_seconds, rotates nothing',
    state,
    { ...config, secret_rotation: null, secret_overlap_seconds: 3600 },
    { ...state, secret_rotation: null, secret_overlap_seconds: 3600 },
  ],
  [
    'a change: ids and secret kept, status unknown',
    state,
    { ...config, name: 'm' },
    { ...state, name: 'm', http_status_code: UNKNOWN },
  ],
  [
    'omitting description plans its default',
    { ...state, description: 'd' },
    { ...config, description: null },
    { ...state, http_status_code: UNKNOWN },
  ],
  [
    'moving and deactivating an active webhook at once is allowed',
    state,
    { ...config, client_url: 'https://example.com/b', active: false },
    { ...state, client_url: 'https://example.com/b', active: false, http_status_code: UNKNOWN },
  ],
  [
    'reactivating an archived (inactive) webhook with a new URL is allowed',
    { ...state, active: false },
    { ...config, client_url: 'https://example.com/b' },
    { ...state, client_url: 'https://example.com/b', http_status_code: UNKNOWN },
  ],
])('plan: %s', (_name, prior, configured, expected) => {
  const proposed = {
    ...configured,
    ...(prior === null
      ? {}
      : {
          id: prior.id,
          webhook_id: prior.webhook_id,
          http_status_code: prior.http_status_code,
          hmac_secret: prior.hmac_secret,
          account_identifier: prior.account_identifier,
          previous_secret_expires_at: prior.previous_secret_expires_at,
        }),
  };
  expect(planWebhook(prior, proposed, configured)).toEqual({ planned: expected, diagnostics: [] });
});

test('plan: a new URL for a webhook that is inactive and stays inactive is an error at client_url', () => {
  const prior = { ...state, active: false };
  const configured = { ...config, client_url: 'https://example.com/b', active: false };
  const { diagnostics } = planWebhook(prior, { ...configured, id: 'wsu_1' }, configured);
  expect(diagnostics).toEqual([
    expect.objectContaining({
      severity: 'ERROR',
      summary: CLIENT_URL_WHILE_INACTIVE,
      attribute: { steps: [{ attribute_name: 'client_url' }] },
    }),
  ]);
});

test("secret_overlap_seconds is checked with the rotation endpoint's own rules and messages", () => {
  const known = { name: 'x', client_url: 'https://example.com/a', event_types: ['job.run.completed'] };
  expect(validateWebhookConfig({ ...known, secret_overlap_seconds: 604800 })).toEqual([]);
  expect(validateWebhookConfig({ ...known, secret_overlap_seconds: UNKNOWN })).toEqual([]);
  expect(validateWebhookConfig({ ...known, secret_overlap_seconds: 604801 })).toEqual([
    {
      severity: 'ERROR',
      summary: 'Invalid secret_overlap_seconds',
      detail: 'overlap_seconds must be at most 604800 (7 days)',
      attribute: { steps: [{ attribute_name: 'secret_overlap_seconds' }] },
    },
  ]);
  expect(validateWebhookConfig({ ...known, secret_overlap_seconds: 1.5 })[0]?.detail).toBe(
    'overlap_seconds must be a whole number of seconds',
  );
});

test("max_requests_per_second (jobhooks' own) is checked with the API's rule and message; null and unknown pass", () => {
  const known = { name: 'x', client_url: 'https://example.com/a', event_types: ['job.run.completed'] };
  for (const fine of [1, 100, null, UNKNOWN])
    expect(validateWebhookConfig({ ...known, max_requests_per_second: fine })).toEqual([]);
  for (const bad of [0, 101, 2.5]) {
    expect(validateWebhookConfig({ ...known, max_requests_per_second: bad })).toEqual([
      {
        severity: 'ERROR',
        summary: 'Invalid max_requests_per_second',
        detail: 'max_requests_per_second must be a whole number from 1 to 100, or null for no limit',
        attribute: { steps: [{ attribute_name: 'max_requests_per_second' }] },
      },
    ]);
  }
});

test('plan: a new max_requests_per_second is an in-place update, and the PUT carries it (null when removed)', async () => {
  const prior = { ...state, max_requests_per_second: 5 };
  const configured = { ...config, max_requests_per_second: 20 };
  const { planned } = planWebhook(prior, { ...configured, id: 'wsu_1' }, configured);
  expect(planned).toMatchObject({ id: 'wsu_1', max_requests_per_second: 20, http_status_code: UNKNOWN });

  const sent: unknown[] = [];
  const refuse = () => Promise.reject(new Error('no such request expected'));
  const api: WebhookApi = {
    create: refuse,
    get: refuse,
    delete: refuse,
    rotateSecret: refuse,
    update: (id, input) => {
      sent.push(input.max_requests_per_second);
      const rate = input.max_requests_per_second ?? undefined;
      return Promise.resolve({
        id,
        account_id: '1',
        name: input.name,
        description: input.description ?? '',
        client_url: input.client_url,
        event_types: input.event_types,
        job_ids: [],
        active: true,
        http_status_code: '0',
        account_identifier: 'act_1',
        created_at: '1',
        updated_at: '2',
        ...(rate === undefined ? {} : { max_requests_per_second: rate }),
      });
    },
  };
  const raised = await applyWebhook(api, prior, { ...planned!, secret_rotation: 'a' });
  expect(raised.newState).toMatchObject({ max_requests_per_second: 20 });
  const removed = await applyWebhook(api, raised.newState, { ...raised.newState!, max_requests_per_second: null });
  expect(removed.newState).toMatchObject({ max_requests_per_second: null });
  expect(sent).toEqual([20, null]);
});

test('apply: a change of secret_overlap_seconds alone, or removing secret_rotation, makes no request', async () => {
  const refuse = () => Promise.reject(new Error('no request expected'));
  const api: WebhookApi = { create: refuse, get: refuse, update: refuse, delete: refuse, rotateSecret: refuse };
  const planned = { ...state, secret_rotation: null, secret_overlap_seconds: 3600 };
  expect(await applyWebhook(api, state, planned)).toEqual({ newState: planned, diagnostics: [] });
});

test('apply: a rotation that fails keeps the old secret and the old secret_rotation, so the next apply tries again', async () => {
  const refuse = () => Promise.reject(new Error('unreachable'));
  const api: WebhookApi = { create: refuse, get: refuse, update: refuse, delete: refuse, rotateSecret: refuse };
  const { newState, diagnostics } = await applyWebhook(api, state, {
    ...state,
    secret_rotation: 'b',
    hmac_secret: UNKNOWN,
    previous_secret_expires_at: UNKNOWN,
  });
  expect(newState).toEqual(state);
  expect(diagnostics).toEqual([expect.objectContaining({ summary: 'Unable to rotate the webhook secret' })]);
});

test("upgrading a state: an earlier version's microsecond digits become RFC 3339; RFC 3339, null and no state stay", () => {
  expect(upgradeWebhookState({ ...state, previous_secret_expires_at: '1700000000000000' })).toEqual({
    ...state,
    previous_secret_expires_at: '2023-11-14T22:13:20.000000Z',
  });
  const current = { ...state, previous_secret_expires_at: '2023-11-14T22:13:20.000000Z' };
  expect(upgradeWebhookState(current)).toEqual(current);
  expect(upgradeWebhookState(state)).toEqual(state);
  expect(upgradeWebhookState(null)).toBeNull();
});

test('apply: a rotation writes when the old secret stops signing in RFC 3339', async () => {
  const refuse = () => Promise.reject(new Error('no such request expected'));
  const api: WebhookApi = {
    create: refuse,
    get: refuse,
    update: refuse,
    delete: refuse,
    rotateSecret: (...asked) => {
      rotations.push(asked);
      return Promise.resolve({
        id: 'wsu_1',
        hmac_secret: 'f'.repeat(64),
        previous_secret_expires_at: '1700000000000000',
      });
    },
  };
  const rotations: unknown[][] = [];
  const planned = { ...state, secret_rotation: 'b', hmac_secret: UNKNOWN, previous_secret_expires_at: UNKNOWN };
  const { newState } = await applyWebhook(api, state, planned);
  expect(newState).toMatchObject({
    hmac_secret: 'f'.repeat(64),
    previous_secret_expires_at: '2023-11-14T22:13:20.000000Z',
  });
  // Under the key of this secret_rotation value: an apply run again after a lost answer gets the same rotation.
  await applyWebhook(api, state, planned);
  const key = rotationIdempotencyKey(state.id, 'b', String(state.hmac_secret));
  expect(rotations).toEqual([
    [state.id, 60, { idempotencyKey: key }],
    [state.id, 60, { idempotencyKey: key }],
  ]);
});

test('plan: destroy plans null', () => {
  expect(planWebhook(state, null, null)).toEqual({ planned: null, diagnostics: [] });
});

test('provider block values are checked at validation, as the public provider checks them', () => {
  expect(validateProviderConfig({ retriable_status_codes: ['429', 'abc', '600'], timeout_seconds: -1 })).toEqual([
    expect.objectContaining({
      summary: 'Invalid retriable_status_codes',
      detail: '"abc" is not an HTTP status code: each must be a valid HTTP status code (100-599).',
    }),
    expect.objectContaining({
      summary: 'Invalid retriable_status_codes',
      detail: '"600" is not an HTTP status code: each must be a valid HTTP status code (100-599).',
    }),
    expect.objectContaining({
      summary: 'Invalid timeout_seconds',
      detail: 'timeout_seconds must be 0 (no limit) or more.',
    }),
  ]);
  expect(validateProviderConfig({ retriable_status_codes: ['409', '599'], timeout_seconds: 0 })).toEqual([]);
});

test('the plugin refuses to run when not started by Terraform, and says what it is', () => {
  const plugin = resolve(__dirname, '..', '..', 'provider', 'terraform', 'dist', 'provider-program.js');
  const run = spawnSync(process.execPath, [plugin], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
  expect(run.status).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr).toContain('Terraform starts it; set it up with "npx @jobhooks/terraform-provider install".');
});

test('without terraform on PATH the Terraform tests fail and say why, rather than skip', () => {
  expect(() => terraformOnPath('/nonexistent')).toThrow(/terraform is not on PATH.*nothing is skipped/);
});

test('provider settings: the block wins over DBT_CLOUD_*, and the retry settings reach the client', () => {
  const env = { DBT_CLOUD_ACCOUNT_ID: '7', DBT_CLOUD_TOKEN: 'from-env', DBT_CLOUD_HOST_URL: 'http://127.0.0.1:1/api' };
  const configured = resolveProviderSettings(
    {
      account_id: 3,
      token: null,
      host_url: null,
      max_retries: 5,
      retry_interval_seconds: 2,
      retriable_status_codes: ['429', '409'],
      timeout_seconds: 15,
      disable_retry: null,
      skip_credentials_validation: true,
    },
    env,
  );
  expect(configured.settings).toEqual({
    client: {
      hostUrl: 'http://127.0.0.1:1/api',
      accountId: 3,
      token: 'from-env',
      maxAttempts: 6,
      firstRetryDelayMs: 2000,
      retryableStatuses: [408, 429, 500, 502, 503, 504, 409],
      timeoutMs: 15000,
    },
    skipCredentialsValidation: true,
  });
  expect(resolveProviderSettings({ disable_retry: true }, env).settings?.client.maxAttempts).toBe(1);
  // The public provider's defaults: 30 s, and 0 for no limit.
  expect(resolveProviderSettings({}, env).settings?.client.timeoutMs).toBe(30_000);
  expect(resolveProviderSettings({ timeout_seconds: 0 }, env).settings?.client.timeoutMs).toBe(0);
  expect(resolveProviderSettings({ account_id: 1, token: 't' }, {}).settings?.client.hostUrl).toBe(
    'https://cloud.getdbt.com/api',
  );
  expect(resolveProviderSettings({}, {}).diagnostics.map((d) => d.attribute?.steps[0]?.attribute_name)).toEqual([
    'account_id',
    'token',
  ]);
  const withoutApi = resolveProviderSettings(
    { account_id: 1, token: 't', host_url: 'http://127.0.0.1:8080' },
    {},
  ).diagnostics;
  expect(withoutApi).toEqual([
    expect.objectContaining({
      summary: 'Invalid host_url',
      detail: 'host_url must end in /api (e.g. http://127.0.0.1:8080/api), not "http://127.0.0.1:8080".',
    }),
  ]);
  // A token broken across lines: its attribute named, the token not shown.
  expect(resolveProviderSettings({ account_id: 1, token: 'dbtc_first\nSECOND' }, {}).diagnostics).toEqual([
    expect.objectContaining({
      summary: 'Invalid token',
      detail:
        'token: the token holds a space, line break or other character inside it that no API token has (pasted across lines?); it is not shown here.',
    }),
  ]);
  expect(resolveProviderSettings({ account_id: UNKNOWN }, env).diagnostics).toEqual([
    expect.objectContaining({ summary: 'Unknown account_id' }),
  ]);
});
