// Where secrets go (a 0600 file, merged, never half-written) and where the connection comes from.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CreatedWebhook } from '@jobhooks/client/contract';
import { applyChanges, ChangeFailed } from '../../provider/as-code/src/apply';
import { CliError } from '@jobhooks/client';
import { connectionFrom } from '../../provider/as-code/src/connection';
import { secretsFile, shownSecrets } from '../../provider/as-code/src/secrets';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('the secrets file is merged, rewritten after each secret, and readable by its owner only', () => {
  const path = join(dir, 'secrets.json');
  writeFileSync(path, JSON.stringify({ kept: 'old-secret', replaced: 'before' }), { mode: 0o644 });
  chmodSync(path, 0o644);
  const sink = secretsFile(path);
  sink.prepare();
  expect(statSync(path).mode & 0o777).toBe(0o600);
  sink.record('replaced', 'after');
  expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ kept: 'old-secret', replaced: 'after' });
  sink.record('ns/new', 'new-secret');
  expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
    kept: 'old-secret',
    replaced: 'after',
    'ns/new': 'new-secret',
  });
  expect(statSync(path).mode & 0o777).toBe(0o600);
  // A deleted webhook's secret leaves the file; forgetting a key the file does not hold changes nothing.
  sink.forget('replaced');
  sink.forget('never-kept');
  expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ kept: 'old-secret', 'ns/new': 'new-secret' });
  expect(statSync(path).mode & 0o777).toBe(0o600);
});

test('a secrets file that is not a JSON object of secrets, or cannot be written, stops the run before any change', () => {
  const path = join(dir, 'secrets.json');
  writeFileSync(path, 'token: s3cr3t-value');
  const error = (() => {
    try {
      secretsFile(path).prepare();
    } catch (thrown) {
      return thrown as Error;
    }
    return null;
  })();
  expect(error).toBeInstanceOf(CliError);
  expect(error?.message).toBe(
    `--secrets-out ${path} is not a JSON object of secrets (identifier -> secret); nothing was changed.`,
  );
  expect(readFileSync(path, 'utf8')).toBe('token: s3cr3t-value');
  writeFileSync(path, '{"a": 1}');
  expect(() => secretsFile(path).prepare()).toThrow(/is not a JSON object of secrets/);
  expect(() => secretsFile(join(dir, 'missing-folder', 'secrets.json')).prepare()).toThrow(
    `--secrets-out ${join(dir, 'missing-folder', 'secrets.json')} cannot be written (ENOENT); nothing was changed.`,
  );
  mkdirSync(join(dir, 'a-folder'));
  expect(() => secretsFile(join(dir, 'a-folder')).prepare()).toThrow(/cannot be read \(EISDIR\)/);
});

test('--show-secrets prints each secret as soon as its webhook is created, under one heading', () => {
  const printed: string[] = [];
  const sink = shownSecrets((text) => printed.push(text));
  sink.prepare();
  sink.record('one', 'secret-1');
  expect(printed.join('')).toBe(
    'The secrets of the created webhooks (the API shows each only once: keep them now):\n  one: secret-1\n',
  );
  sink.record('two', 'secret-2');
  expect(printed.slice(1)).toEqual(['  one: secret-1\n', '  two: secret-2\n']);
});

test('the connection: flags, then JOBHOOKS_*, then the variables of terraform-provider-dbtcloud; the token from the environment only', () => {
  const dbt = {
    DBT_CLOUD_HOST_URL: 'https://dbt.example.com/api',
    DBT_CLOUD_ACCOUNT_ID: '5',
    DBT_CLOUD_TOKEN: 'dbt-token',
  };
  expect(connectionFrom({}, dbt)).toMatchObject({
    hostUrl: 'https://dbt.example.com/api',
    accountId: 5,
    token: 'dbt-token',
    tokenVariable: 'DBT_CLOUD_TOKEN',
  });
  const both = {
    ...dbt,
    JOBHOOKS_HOST_URL: 'http://127.0.0.1:8080/api',
    JOBHOOKS_ACCOUNT_ID: '1',
    JOBHOOKS_TOKEN: 'jh-token',
  };
  expect(connectionFrom({}, both)).toMatchObject({
    hostUrl: 'http://127.0.0.1:8080/api',
    accountId: 1,
    token: 'jh-token',
    tokenVariable: 'JOBHOOKS_TOKEN',
  });
  expect(connectionFrom({ hostUrl: 'http://[::1]:9/api', accountId: '7' }, both)).toMatchObject({
    hostUrl: 'http://[::1]:9/api',
    accountId: 7,
    accountIdSource: '--account-id',
  });

  const refusal = (flags: Parameters<typeof connectionFrom>[0], env: NodeJS.ProcessEnv) => {
    try {
      connectionFrom(flags, env);
    } catch (error) {
      return (error as Error).message;
    }
    return null;
  };
  expect(refusal({}, {})).toBe(
    'No server: set JOBHOOKS_HOST_URL (or DBT_CLOUD_HOST_URL), or pass --host-url, to the API base URL ending in /api.',
  );
  expect(refusal({ hostUrl: 'ftp://x/api' }, both)).toBe(
    '--host-url: host_url must be an http or https URL, not "ftp://x/api".',
  );
  expect(refusal({ accountId: '1e3' }, both)).toBe(
    '--account-id must be an account id (a positive whole number), not "1e3".',
  );
  expect(refusal({}, { ...dbt, DBT_CLOUD_ACCOUNT_ID: '' })).toBe(
    'No account: set JOBHOOKS_ACCOUNT_ID (or DBT_CLOUD_ACCOUNT_ID), or pass --account-id.',
  );
  expect(refusal({}, { ...dbt, DBT_CLOUD_TOKEN: '' })).toBe(
    'No token: set JOBHOOKS_TOKEN (or DBT_CLOUD_TOKEN) to an API token of the account.',
  );
  // A token broken across lines is named by its variable, and not shown.
  expect(refusal({}, { ...dbt, DBT_CLOUD_TOKEN: 'dbtc_first\nSECOND' })).toBe(
    'DBT_CLOUD_TOKEN: the token holds a space, line break or other character inside it that no API token has (pasted across lines?); it is not shown here.',
  );
  expect(refusal({}, { ...dbt, DBT_CLOUD_TOKEN: ' \n' })).toBe(
    'DBT_CLOUD_TOKEN: the token is empty once the spaces and line breaks around it are removed.',
  );
  expect(refusal({ hostUrl: 'http://bob:hunter2pw@127.0.0.1:9/api' }, both)).toBe(
    '--host-url: host_url must not carry a user name or password (the API takes its token in a header of its own); remove the "user:password@" part.',
  );
});

test('a created webhook whose secret cannot be kept stops the run, naming the webhook, without the secret', async () => {
  const created = { id: 'wsu_1', hmac_secret: 'the-secret-0123' } as CreatedWebhook;
  const api = { create: async () => created, update: async () => created, delete: async () => true };
  const change = {
    action: 'create' as const,
    key: 'one',
    values: {
      name: 'One [[one]]',
      description: '',
      client_url: 'https://example.com',
      event_types: ['job.run.started' as const],
      job_ids: [],
      active: true,
      max_requests_per_second: null,
    },
  };
  const failure = await applyChanges(api, [change, { ...change, key: 'two' }], {
    secretCreated: () => {
      throw new CliError('--secrets-out /x cannot be written (ENOSPC).');
    },
    changed: () => undefined,
    webhookRemoved: () => undefined,
  }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ChangeFailed);
  const { message, made, cause } = failure as ChangeFailed;
  expect([message, made]).toEqual(['create one failed', 0]);
  expect((cause as Error).message).toBe(
    'one was created (wsu_1) but its secret could not be kept (--secrets-out /x cannot be written (ENOSPC)): delete that webhook and apply again, or its deliveries cannot be verified',
  );
});

test('a deleted entry drops its secret; a duplicate deleted beside the webhook kept under the same key does not', async () => {
  const api = {
    create: async () => ({}) as CreatedWebhook,
    update: async () => ({}) as never,
    delete: async () => true,
  };
  const removed: string[] = [];
  await applyChanges(
    api,
    [
      { action: 'delete', key: 'ns/gone', webhookId: 'wsu_1', name: 'Gone [[ns/gone]]', reason: 'removed' },
      { action: 'delete', key: 'ns/twice', webhookId: 'wsu_2', name: 'Twice [[ns/twice]]', reason: 'duplicate' },
    ],
    { secretCreated: () => undefined, changed: () => undefined, webhookRemoved: (key) => removed.push(key) },
  );
  expect(removed).toEqual(['ns/gone']);
});
