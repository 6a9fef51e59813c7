// The operator command line, run as a user runs it (the built bin), on the database of a running service.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { loadTerraformProviderPackage } from '../service/src/cli/main';
import { loadConfig } from '../service/src/config';
import { openDatabase, schemaVersion } from '../service/src/store/sqlite/database';
import { MIGRATIONS } from '../service/src/store/sqlite/migrations';
import { createService, type Service } from '../service/src/wiring';

// Tests here start processes (the service, the `jobhooks` command), each loading the whole service: a loaded CI
// machine makes them several times slower. A hang guard, not a bound on speed.
jest.setTimeout(90_000);

const run = promisify(execFile);
const BIN = resolve(__dirname, '..', 'service', 'bin', 'jobhooks.js');

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-cli-'));
  env = { ...process.env, JOBHOOKS_DB: join(dir, 'jobhooks.db'), LOG_LEVEL: 'silent' };
  // The service's database, as its first start leaves it: the account and token commands never make one.
  openDatabase(env.JOBHOOKS_DB!).close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const jobhooks = (...args: string[]) => run(process.execPath, [BIN, ...args], { env });
async function failing(...args: string[]) {
  try {
    await jobhooks(...args);
  } catch (error) {
    return error as { code: number; stderr: string };
  }
  throw new Error(`jobhooks ${args.join(' ')} succeeded`);
}

test('--help explains every command', async () => {
  const { stdout } = await jobhooks('--help');
  for (const command of [
    'start',
    'account create',
    'account list',
    'token create',
    'token list',
    'token revoke',
    'db copy',
    'backup',
    'secret-key rotate',
    'terraform install',
  ])
    expect(stdout).toContain(command);
  expect(stdout).toContain('Account Admin');
  // A command's --help is this same text, which the text says, rather than promising help of its own.
  expect((await jobhooks('token', 'create', '--help')).stdout).toBe(stdout);
  expect(stdout).toContain('prints this text');
});

test('accounts and tokens made by the CLI work against a service running on the same database', async () => {
  let service: Service | null = null;
  try {
    service = await createService(loadConfig({ JOBHOOKS_DB: env.JOBHOOKS_DB, LOG_LEVEL: 'silent' }), { logger: false });
    expect(
      (await jobhooks('account', 'create', '--id', '42', '--name', 'Data team', '--plan', 'starter')).stdout,
    ).toMatch(/Created account 42 \(starter plan/);
    expect((await jobhooks('account', 'list')).stdout).toMatch(/^42\tstarter\tact_\w+\tData team$/m);

    const { stdout: token } = await jobhooks(
      'token',
      'create',
      '--account',
      '42',
      '--permission',
      'Developer',
      '--name',
      'ci',
    );
    expect(token).toMatch(/^jhk_[\w-]{43}\n$/);
    const call = () =>
      service!.app.inject({
        method: 'GET',
        url: '/api/v3/accounts/42/webhooks/subscriptions',
        headers: { authorization: `Token ${token.trim()}` },
      });
    expect((await call()).statusCode).toBe(200);

    const listed = (await jobhooks('token', 'list', '--account', '42')).stdout;
    expect(listed).not.toContain(token.trim());
    const tokenId = /^(tok_\w+)\tDeveloper\tactive\tci$/m.exec(listed)?.[1];
    expect(tokenId).toBeDefined();
    expect((await jobhooks('token', 'revoke', tokenId!)).stdout).toContain(`Revoked ${tokenId}`);
    expect((await call()).statusCode).toBe(401);
    expect((await jobhooks('token', 'list', '--account', '42')).stdout).toMatch(/revoked/);
  } finally {
    await service?.close();
  }
});

test.each([
  [['account', 'create'], /--id must be a positive whole number/],
  [['account', 'create', '--id', '1', '--plan', 'gold'], /--plan must be one of: developer, starter, enterprise/],
  [['token', 'create', '--account', '1', '--permission', 'God'], /--permission must be one of/],
  [['token', 'create', '--account', '5', '--permission', 'Admin'], /No account with id 5/],
  [['token', 'revoke'], /needs a token id/],
  [['account', 'create', '--id', '1', '--bogus', 'x'], /Unknown option '--bogus'/],
  [['frobnicate'], /unknown command "frobnicate"/],
  [['terraform'], /terraform needs a subcommand: install/],
  [['terraform', 'install', '--version', 'latest'], /--version must look like 1\.2\.3, not "latest"/],
])('jobhooks %j fails with a clear message and a non-zero exit', async (args, message) => {
  const error = await failing(...args);
  expect(error.code).toBeGreaterThan(0);
  expect(error.stderr).toMatch(message);
});

test('creating an account that exists is refused', async () => {
  await jobhooks('account', 'create', '--id', '7');
  const error = await failing('account', 'create', '--id', '7');
  expect(error.stderr).toMatch(/Account 7 already exists/);
});

describe('jobhooks terraform install', () => {
  test('runs the installer of @jobhooks/terraform-provider and prints its TF_CLI_CONFIG_FILE line', async () => {
    const { stdout } = await jobhooks('terraform', 'install', '--dir', join(dir, 'tf'));
    expect(stdout).toContain(`export TF_CLI_CONFIG_FILE=${join(dir, 'tf', 'terraform.rc')}`);
  });

  test('without @jobhooks/terraform-provider installed, says which package to add', () => {
    // Searched only from a folder with no node_modules above it: the package cannot be found there.
    expect(() => loadTerraformProviderPackage([dir])).toThrow(
      'jobhooks terraform install needs the package @jobhooks/terraform-provider: add it beside jobhooks with "npm install --global @jobhooks/terraform-provider" (in a project: "npm install --save-dev @jobhooks/terraform-provider"), then run this again, or run "npx @jobhooks/terraform-provider install".',
    );
    expect(loadTerraformProviderPackage([__dirname]).runInstallCommand).toBeInstanceOf(Function);
  });
});

test('account and token commands refuse to create a database, and name the path they used', async () => {
  const missing = join(dir, 'elsewhere', 'jobhooks.db');
  for (const args of [
    ['account', 'list'],
    ['token', 'list', '--account', '1'],
    ['account', 'create', '--id', '3'],
  ]) {
    const error = await run(process.execPath, [BIN, ...args], { env: { ...env, JOBHOOKS_DB: missing } }).catch(
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(error).toMatchObject({ code: 1 });
    expect((error as { stderr: string }).stderr).toBe(
      `jobhooks: There is no database at ${missing}: set JOBHOOKS_DB to the service's database (the path its start-up message ends with), or start the service once to create it.\n`,
    );
  }
  expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
  expect((await jobhooks('account', 'list')).stderr).toBe(`Database: ${env.JOBHOOKS_DB}\n`);
});

test('a command does not upgrade a database an older service is still running on; once that service is gone it does', async () => {
  const older = join(dir, 'older.db');
  openDatabase(older, MIGRATIONS.slice(0, -1)).close();
  // This test process stands for the older service: alive, and named in the database's pid file.
  writeFileSync(`${older}.pid`, `${process.pid}\n`);
  const olderEnv = { ...env, JOBHOOKS_DB: older };
  const refused = await run(process.execPath, [BIN, 'account', 'list'], { env: olderEnv }).catch(
    (e: unknown) => e as { code: number; stderr: string },
  );
  expect(refused).toMatchObject({ code: 1 });
  expect((refused as { stderr: string }).stderr).toContain(
    `The database at ${older} was made by an older jobhooks, whose service is still running (pid ${process.pid}): stop it`,
  );
  const db = openDatabase(older, MIGRATIONS.slice(0, -1));
  expect(schemaVersion(db)).toBe(MIGRATIONS.at(-2)!.version);
  db.close();

  rmSync(`${older}.pid`);
  await run(process.execPath, [BIN, 'account', 'list'], { env: olderEnv });
  const upgraded = openDatabase(older);
  expect(schemaVersion(upgraded)).toBe(MIGRATIONS.at(-1)!.version);
  upgraded.close();
});
