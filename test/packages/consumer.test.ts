// The packages as a user gets them: every workspace published to a real npm registry on 127.0.0.1
// (test/support/registry.ts), then installed by name in fresh projects outside this checkout, each used there.
// `npm install -g jobhooks` and `jobhooks start`; an infrastructure repository with its own @pulumi/pulumi,
// cdktf, cdktf-cli, cdktn and constructs, where a cdktf app is deployed with `cdktf deploy` and a cdktn app
// synthesized; a folder holding only main.tf, where `npx @jobhooks/terraform-provider install` is all terraform
// needs; a Pulumi project run by Pulumi's own language runtime and dynamic-provider host; and a repository
// holding only webhooks.yml and @jobhooks/as-code, planned and applied as CI does; and a dbt Core project whose CI
// runs `jobhooks-dbt run -- dbt build` (@jobhooks/dbt). Nothing may point back into the checkout, and no install
// warns about an engine, a peer or a deprecation in our packages' trees.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createWebhooksClient } from '@jobhooks/client';
import type { DeliveryPayload } from '@jobhooks/client/contract';
import { DBT_VERSIONS, SCENARIOS } from '../dbt/support/dbt-artifacts';
import { type DbtProject, dbtProject } from '../dbt/support/stand-in';
import { type PulumiRunResult, runPulumiProgram, type StackState } from '../support/pulumi-engine';
import { type ServiceProcess, startServiceProcess, stopServiceProcesses } from '../support/service-process';
import { packagesVersion, testRegistry } from '../support/registry';
import { type Receiver, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';
import { lockedHashes, terraformOnPath, webhookConfiguration } from '../support/terraform';
import { createUserShell, installWarnings, type UserShell, write } from '../support/user-shell';
import { waitFor } from '../support/wait';

jest.setTimeout(600_000);

const CHECKOUT = resolve(__dirname, '..', '..');
const ADMIN_TOKEN = 'consumer-admin-token-0123456789';
/** A loopback endpoint nothing listens on: no event is posted in this test, so nothing is ever sent to it. */
const ENDPOINT = 'http://127.0.0.1:9/hooks';

let root: string;
let registry: string;
let version: string;
/** The user: their ~/.npmrc names the registry of the @jobhooks scope, as a company's would. */
let user: UserShell;
/** The user's home, and where `npm install -g` puts packages (its bin/ is on the user's PATH). */
let home: string;
let globalPrefix: string;
let globalInstall: { stdout: string; stderr: string };
let serviceDir: string;
let project: string;
let service: ServiceProcess;
let hostUrl: string;
let account2Token: string;

/** Runs a command in the user's shell; throws with its output unless it exits 0. */
const sh: UserShell['sh'] = (...args) => user.sh(...args);
const shExit: UserShell['shExit'] = (...args) => user.shExit(...args);
const npmInstall = (dir: string) => user.npmInstall(dir);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'jobhooks-consumer-'));
  registry = testRegistry();
  version = packagesVersion();
  user = createUserShell(root, registry);
  ({ home, globalPrefix } = user);

  // The service, as an operator installs it: `npm install -g jobhooks` (jobhooks is not scoped: the whole install
  // goes through the registry, which serves the rest from its uplink), beside the provider's installer.
  globalInstall = await sh(
    'npm',
    [
      'install',
      '--global',
      `--prefix=${globalPrefix}`,
      `--registry=${registry}`,
      '--allow-scripts=better-sqlite3',
      '--no-audit',
      '--no-fund',
      `jobhooks@${version}`,
      `@jobhooks/terraform-provider@${version}`,
    ],
    root,
  );
  serviceDir = join(root, 'jobhooks-service');
  mkdirSync(serviceDir);
  const dbPath = join(root, 'data', 'jobhooks.db');
  service = await startServiceProcess(
    {
      JOBHOOKS_DB: dbPath,
      JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1',
      JOBHOOKS_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
      JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
    },
    [],
    { command: join(globalPrefix, 'bin', 'jobhooks'), args: ['start'], cwd: serviceDir },
  );
  hostUrl = service.baseUrl;
  const cli = (args: string[]) => sh('jobhooks', args, serviceDir, { JOBHOOKS_DB: dbPath });
  await cli(['account', 'create', '--id', '2', '--name', 'Second team']);
  account2Token = (await cli(['token', 'create', '--account', '2', '--permission', 'Account Admin'])).stdout.trim();

  // A platform team's infrastructure repository, which names our packages' registry in its .npmrc.
  project = join(root, 'infrastructure');
  write(join(project, '.npmrc'), `@jobhooks:registry=${registry}\n`);
  write(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'infrastructure',
      private: true,
      dependencies: {
        '@jobhooks/client': version,
        '@jobhooks/cdktf': version,
        '@jobhooks/cdktn': version,
        '@jobhooks/terraform-provider': version,
        cdktf: '0.21.0',
        'cdktf-cli': '0.21.0',
        cdktn: '0.24.0',
        'cdktn-cli': '0.24.0',
        constructs: '~10.7.0',
      },
    }),
  );
  await npmInstall(project);
});

afterAll(async () => {
  await stopServiceProcesses();
  if (root) rmSync(root, { recursive: true, force: true });
});

const api = (accountId = 1, token = ADMIN_TOKEN) => createWebhooksClient({ hostUrl, accountId, token });

test('`npm install -g jobhooks` on this Node warns about no engine, peer or deprecation, and `jobhooks start` serves the API and the web UI', async () => {
  expect(installWarnings(globalInstall.stderr)).toEqual([]);
  const origin = hostUrl.replace(/\/api$/, '');
  expect((await fetch(`${origin}/healthz`)).status).toBe(200);
  const page = await (await fetch(`${origin}/`)).text();
  const script = /<script[^>]+src="([^"]+)"/.exec(page)?.[1];
  expect(script).toBeDefined();
  const asset = await fetch(new URL(script!, `${origin}/`));
  expect(asset.status).toBe(200);
  expect((await asset.text()).length).toBeGreaterThan(1_000);
  expect((await api().accounts()).map((account) => account.id)).toEqual([1]);

  const installed = readdirSync(join(globalPrefix, 'lib', 'node_modules', 'jobhooks', 'node_modules'));
  for (const unused of ['@pulumi', 'cdktf', 'constructs', '@grpc', 'typescript', 'tsx', 'jest'])
    expect(installed).not.toContain(unused);
});

test('the client and the CDKTF and cdktn constructs, with their peers, install by name without a warning', async () => {
  // The libraries alone, as an app adds them (the CLIs are the app's own tools, with their own trees).
  const dir = join(root, 'libraries');
  write(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'libraries',
      private: true,
      dependencies: {
        '@jobhooks/client': version,
        '@jobhooks/cdktf': version,
        '@jobhooks/cdktn': version,
        cdktf: '0.21.0',
        cdktn: '0.24.0',
        constructs: '~10.7.0',
      },
    }),
  );
  const installed = await npmInstall(dir);
  expect(installWarnings(installed.stderr)).toEqual([]);
  expect(readdirSync(join(dir, 'node_modules', '@jobhooks')).sort()).toEqual(['cdktf', 'cdktn', 'client']);
});

describe('Pulumi', () => {
  const PROGRAM = `// A platform team's program: one webhook through the stack's dbtcloud:* config, one in a second account.
const pulumi = require('@pulumi/pulumi');
const { Webhook } = require('@jobhooks/pulumi');

const config = new pulumi.Config('infrastructure');
if (!config.getBoolean('empty')) {
  const team = new Webhook('team', {
    clientUrl: '${ENDPOINT}/team',
    eventTypes: ['job.run.completed'],
    description: config.get('description') || '',
  });
  const other = new Webhook('second-account', {
    name: 'Second team errors',
    clientUrl: '${ENDPOINT}/second',
    eventTypes: ['job.run.errored'],
    connection: { hostUrl: config.require('secondHostUrl'), accountId: 2, token: config.requireSecret('secondToken') },
  });
  exports.teamId = team.webhookId;
  exports.secondId = other.webhookId;
}
`;
  const config = (extra: Record<string, string>) => ({
    'dbtcloud:hostUrl': hostUrl,
    'dbtcloud:accountId': '1',
    'dbtcloud:token': ADMIN_TOKEN,
    'infrastructure:secondHostUrl': hostUrl,
    'infrastructure:secondToken': account2Token,
    ...extra,
  });
  const up = (
    dir: string,
    previous: StackState | undefined,
    extra: Record<string, string> = {},
  ): Promise<PulumiRunResult> =>
    runPulumiProgram({
      projectDir: dir,
      main: 'index.js',
      project: 'infrastructure',
      stack: 'prod',
      config: config(extra),
      secretConfigKeys: ['dbtcloud:token', 'infrastructure:secondToken'],
      previous,
      timeoutMs: 120_000,
    });
  const opsByName = (result: PulumiRunResult) =>
    Object.fromEntries(result.steps.map((step) => [step.urn.split('::').pop(), step.op]));

  test('creates, updates after the project moved, and deletes, with a state that names no file path', async () => {
    // A Pulumi project of its own, as `pulumi new` makes one: its package.json, its node_modules.
    const pulumiDir = join(root, 'pulumi-webhooks');
    write(
      join(pulumiDir, 'package.json'),
      JSON.stringify({
        name: 'pulumi-webhooks',
        private: true,
        dependencies: {
          '@jobhooks/client': version,
          '@jobhooks/pulumi': version,
          '@pulumi/pulumi': '~3.248.0',
        },
      }),
    );
    write(join(pulumiDir, 'index.js'), PROGRAM);
    expect(installWarnings((await npmInstall(pulumiDir)).stderr)).toEqual([]);

    const created = await up(pulumiDir, undefined);
    expect(opsByName(created)).toMatchObject({ team: 'create', 'second-account': 'create' });
    const teamId = created.stackOutputs.teamId as string;
    const secondId = created.stackOutputs.secondId as string;
    expect(await api().get(teamId)).toMatchObject({ name: 'team', event_types: ['job.run.completed'] });
    expect(await api(2, account2Token).get(secondId)).toMatchObject({ name: 'Second team errors' });
    expect(await api().get(secondId)).toBeNull();

    const state = JSON.stringify(created.state);
    expect(state).toContain('@jobhooks/pulumi/provider');
    for (const path of [CHECKOUT, root, 'node_modules', '.js"']) expect(state).not.toContain(path);
    const second = created.state.resources.find((resource) => resource.urn.endsWith('::second-account'))!;
    expect(JSON.stringify(second.inputs.connection)).toContain('1b47061264138c4ac30d75fd1eb44270'); // Pulumi's secret marker

    // The project moves (a new clone, a CI runner's workspace): the state from the old place still works.
    const moved = join(root, 'moved', 'pulumi-webhooks');
    mkdirSync(join(moved, '..'));
    renameSync(pulumiDir, moved);
    const updated = await up(moved, created.state, { 'infrastructure:description': 'runs of every job' });
    expect(opsByName(updated)).toMatchObject({ team: 'update', 'second-account': 'same' });
    expect(await api().get(teamId)).toMatchObject({ description: 'runs of every job' });

    const emptied = await up(moved, updated.state, { 'infrastructure:empty': 'true' });
    expect(opsByName(emptied)).toMatchObject({ team: 'delete', 'second-account': 'delete' });
    expect(await api().get(teamId)).toBeNull();
    expect(await api(2, account2Token).get(secondId)).toBeNull();
  });
});

describe('CDKTF, CDK Terrain and Terraform', () => {
  const app = (library: 'cdktf' | 'cdktn') => `const { App, TerraformOutput, TerraformStack } = require('${library}');
const { DbtcloudProvider, DbtcloudWebhook } = require('@jobhooks/${library}');

const app = new App();
const stack = new TerraformStack(app, 'webhooks');
new DbtcloudProvider(stack, 'dbtcloud', {});
const hook = new DbtcloudWebhook(stack, 'errored_runs', { name: 'Errored runs (${library})', clientUrl: '${ENDPOINT}/${library}', eventTypes: ['job.run.errored'] });
new TerraformOutput(stack, 'webhook_id', { value: hook.webhookId });
app.synth();
`;
  const connection = () => ({
    DBT_CLOUD_HOST_URL: hostUrl,
    DBT_CLOUD_ACCOUNT_ID: '1',
    DBT_CLOUD_TOKEN: ADMIN_TOKEN,
    CI: '1',
  });
  /** `npx jobhooks-terraform-provider install` in a folder of the project (the project's own dependency). */
  const installProvider = (dir: string) => sh('npx', ['--no-install', 'jobhooks-terraform-provider', 'install'], dir);

  beforeAll(() => terraformOnPath());

  test('`npx cdktf synth`, `install`, then `npx cdktf deploy` applies a cdktf app offline with no warning, every stack locked, and `cdktf destroy` removes it', async () => {
    const dir = join(project, 'cdktf');
    write(join(dir, 'main.js'), app('cdktf'));
    write(
      join(dir, 'cdktf.json'),
      JSON.stringify({
        language: 'typescript',
        app: 'node main.js',
        projectId: 'infrastructure',
        sendCrashReports: 'false',
      }),
    );
    const env = connection();
    const cdktf = (args: string[]) => sh('npx', ['--no-install', 'cdktf', ...args], dir, env);
    // terraform runs in cdktf.out/stacks/webhooks: the provider and the lock file go there, once it exists.
    await cdktf(['synth']);
    const stackDir = join(dir, 'cdktf.out', 'stacks', 'webhooks');
    const installed = await installProvider(dir);
    expect(installed.stdout).toContain(`in ${join(stackDir, 'terraform.d', 'plugins')}`);
    expect(installed.stdout).toContain(
      `Locked the checksum of every platform in ${join(stackDir, '.terraform.lock.hcl')}.`,
    );
    expect(existsSync(join(home, '.terraform.d', 'plugins'))).toBe(false); // (cdktf keeps a file of its own in ~/.terraform.d)
    const lock = readFileSync(join(stackDir, '.terraform.lock.hcl'), 'utf8');
    expect(lock).toContain('provider "registry.terraform.io/dbt-labs/dbtcloud"');
    expect(lock).toContain('version     = "1.12.0"');
    expect(lock).toContain('constraints = "~> 1.12"');
    expect(lockedHashes(stackDir)).toHaveLength(1);

    // With the lock file in place, cdktf runs no lock step of its own (which would ask the public registry).
    const deployed = await cdktf(['deploy', '--auto-approve', '--outputs-file', 'outputs.json']);
    expect(`${deployed.stdout}${deployed.stderr}`).not.toMatch(/warning|Incomplete lock file/i);
    const webhookId = (
      JSON.parse(readFileSync(join(dir, 'outputs.json'), 'utf8')) as { webhooks: { webhook_id: string } }
    ).webhooks.webhook_id;
    expect(await api().get(webhookId)).toMatchObject({ name: 'Errored runs (cdktf)' });
    expect(readFileSync(join(stackDir, '.terraform.lock.hcl'), 'utf8')).toBe(lock);
    expect(readFileSync(join(dir, 'terraform.webhooks.tfstate'), 'utf8')).not.toMatch(
      new RegExp(`${CHECKOUT}|${root}`),
    );
    await cdktf(['destroy', '--auto-approve']);
    expect(await api().get(webhookId)).toBeNull();
  });

  test('a cdktn app synthesizes the provider with its version and the webhook', async () => {
    const dir = join(project, 'cdktn');
    write(join(dir, 'main.js'), app('cdktn'));
    await sh(process.execPath, ['main.js'], dir);
    const synthesized = JSON.parse(
      readFileSync(join(dir, 'cdktf.out', 'stacks', 'webhooks', 'cdk.tf.json'), 'utf8'),
    ) as {
      terraform: { required_providers: unknown };
      resource: { dbtcloud_webhook: Record<string, { name: string }> };
    };
    expect(synthesized.terraform.required_providers).toEqual({
      dbtcloud: { source: 'dbt-labs/dbtcloud', version: '~> 1.12' },
    });
    expect(synthesized.resource.dbtcloud_webhook.errored_runs!.name).toBe('Errored runs (cdktn)');
  });

  test('`install` then `npx cdktn deploy` applies the cdktn app on Node 22 (cdktn-cli declares 22.19 or later); on Node 20 cdktn-cli stops at start, as the install guide says', async () => {
    const dir = join(project, 'cdktn');
    write(join(dir, 'main.js'), app('cdktn'));
    write(
      join(dir, 'cdktf.json'),
      JSON.stringify({
        language: 'typescript',
        app: 'node main.js',
        projectId: 'infrastructure-cdktn',
        sendCrashReports: 'false',
      }),
    );
    // The app synthesizes itself (cdktn-cli, which `cdktn synth` needs, does not start on Node 20).
    await sh(process.execPath, ['main.js'], dir);
    await installProvider(dir);
    expect(lockedHashes(join(dir, 'cdktf.out', 'stacks', 'webhooks'))).toHaveLength(1);
    const env = connection();
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    const deploy = sh(
      'npx',
      ['--no-install', 'cdktn', 'deploy', '--auto-approve', '--outputs-file', 'outputs.json'],
      dir,
      env,
    );
    if (major < 22 || (major === 22 && minor < 10)) {
      await expect(deploy).rejects.toThrow('markAsUncloneable is not a function');
      return;
    }
    const deployed = await deploy;
    expect(`${deployed.stdout}${deployed.stderr}`).not.toMatch(/warning|Incomplete lock file/i);
    const webhookId = (
      JSON.parse(readFileSync(join(dir, 'outputs.json'), 'utf8')) as { webhooks: { webhook_id: string } }
    ).webhooks.webhook_id;
    expect(await api().get(webhookId)).toMatchObject({ name: 'Errored runs (cdktn)' });
    await sh('npx', ['--no-install', 'cdktn', 'destroy', '--auto-approve'], dir, env);
    expect(await api().get(webhookId)).toBeNull();
  });

  test('a folder holding only main.tf: `npx @jobhooks/terraform-provider install` from the registry, then init and apply, with no CLI configuration and no warning', async () => {
    const hcl = webhookConfiguration({ name: 'Errored runs (HCL)', clientUrl: `${ENDPOINT}/hcl`, output: true });
    const dir = join(root, 'terraform-only');
    write(join(dir, 'main.tf'), hcl);
    // npx installs the package from the registry the user's ~/.npmrc names (into a cache of its own here, so an
    // earlier run's copy of this version cannot stand in for the one just published).
    const installed = await sh('npx', ['--yes', '@jobhooks/terraform-provider', 'install'], dir, {
      npm_config_cache: join(root, 'npx-cache'),
    });
    expect(installWarnings(installed.stderr)).toEqual([]);
    expect(installed.stdout).toContain('Locked the checksum of every platform');
    expect(readdirSync(dir).sort()).toEqual(['.terraform.lock.hcl', 'main.tf', 'terraform.d']);

    const env = connection();
    const terraform = (args: string[]) => sh('terraform', [...args, '-no-color'], dir, env);
    const init = await terraform(['init', '-input=false']);
    const apply = await terraform(['apply', '-auto-approve', '-input=false']);
    for (const output of [init, apply]) expect(`${output.stdout}${output.stderr}`).not.toMatch(/warning/i);
    const webhookId = (await sh('terraform', ['output', '-raw', 'webhook_id'], dir, env)).stdout.trim();
    expect(await api().get(webhookId)).toMatchObject({ name: 'Errored runs (HCL)' });
    expect(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')).not.toMatch(new RegExp(`${CHECKOUT}|${root}`));
    await terraform(['destroy', '-auto-approve', '-input=false']);
    expect(await api().get(webhookId)).toBeNull();

    // The same checksums from the project's own dependency and from the global install, in other folders: the
    // lock file a team commits holds wherever and however each member installed the provider.
    const inProject = join(project, 'terraform');
    write(join(inProject, 'main.tf'), hcl);
    await installProvider(inProject);
    const elsewhere = join(root, 'terraform-global');
    write(join(elsewhere, 'main.tf'), hcl);
    await sh('jobhooks', ['terraform', 'install'], elsewhere);
    expect(lockedHashes(dir)).toHaveLength(1); // the same bytes, so one checksum, on every platform
    expect(lockedHashes(inProject)).toEqual(lockedHashes(dir));
    expect(lockedHashes(elsewhere)).toEqual(lockedHashes(dir));
  });
});

describe('webhooks as code', () => {
  // A platform team's repository of its own: webhooks.yml and @jobhooks/as-code, nothing else.
  let repo: string;
  let repoInstall: { stderr: string };
  beforeAll(async () => {
    repo = join(root, 'webhooks-repo');
    write(
      join(repo, 'package.json'),
      JSON.stringify({
        name: 'webhooks-repo',
        private: true,
        dependencies: {
          '@jobhooks/client': version,
          '@jobhooks/as-code': version,
        },
      }),
    );
    repoInstall = await npmInstall(repo);
  });

  test('@jobhooks/as-code installs by name without a warning, the service or the infrastructure tools, and ships its JSON Schema', () => {
    expect(installWarnings(repoInstall.stderr)).toEqual([]);
    const modules = join(repo, 'node_modules');
    // Every package installed, at any depth, as npm recorded it.
    const lock = JSON.parse(readFileSync(join(modules, '.package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const installed = Object.keys(lock.packages).map((path) => path.slice(path.lastIndexOf('node_modules/') + 13));
    expect(installed).toContain('@jobhooks/as-code');
    const topLevel = readdirSync(modules);
    for (const unused of [
      'fastify',
      'better-sqlite3',
      '@pulumi',
      'cdktf',
      'cdktn',
      'constructs',
      '@grpc',
      'jobhooks',
    ]) {
      expect(topLevel).not.toContain(unused);
      expect(installed.filter((name) => name === unused || name.startsWith(`${unused}/`))).toEqual([]);
    }
    expect(readdirSync(join(modules, '@jobhooks')).sort()).toEqual(['as-code', 'client']);

    const schemaFile = join(modules, '@jobhooks', 'as-code', 'webhooks.schema.json');
    expect(existsSync(schemaFile)).toBe(true);
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as { $schema?: unknown };
    expect(schema.$schema).toEqual(expect.any(String));
  });

  test('CI plans and applies webhooks.yml with nothing but the package and three environment variables', async () => {
    write(
      join(repo, 'webhooks.yml'),
      `# yaml-language-server: $schema=./node_modules/@jobhooks/as-code/webhooks.schema.json
namespace: platform
webhooks:
  errored-runs:
    name: Errored runs
    client_url: \${ALERTS_URL}
    event_types: [job.run.errored]
`,
    );
    // A CI job's environment: the connection and the file's variable, nothing of this machine's.
    const env = {
      JOBHOOKS_HOST_URL: hostUrl,
      JOBHOOKS_ACCOUNT_ID: '2',
      JOBHOOKS_TOKEN: account2Token,
      ALERTS_URL: ENDPOINT,
    };
    const asCode = async (args: string[], expected: number) => {
      const result = await shExit('npx', ['--no-install', 'jobhooks-as-code', ...args], repo, env);
      if (result.code !== expected)
        throw new Error(
          `jobhooks-as-code ${args.join(' ')}: exit ${result.code}, expected ${expected}\n${result.stdout}\n${result.stderr}`,
        );
      return result;
    };

    const runs = [
      await asCode(['validate', 'webhooks.yml'], 0),
      await asCode(['plan', 'webhooks.yml', '--detailed-exitcode'], 2),
    ];
    expect(runs[1]!.stdout).toContain('+ create platform/errored-runs');
    runs.push(await asCode(['apply', 'webhooks.yml', '--auto-approve', '--secrets-out', 'secrets.json'], 0));
    const secretsFile = join(repo, 'secrets.json');
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, string>;
    expect(Object.keys(secrets)).toEqual(['platform/errored-runs']);
    const secret = secrets['platform/errored-runs']!;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    runs.push(await asCode(['plan', 'webhooks.yml', '--detailed-exitcode'], 0));
    for (const result of runs) expect(result.stdout + result.stderr).not.toContain(secret);

    const created = (await api(2, account2Token).list()).data.filter((webhook) =>
      webhook.name.endsWith('[[platform/errored-runs]]'),
    );
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      name: 'Errored runs [[platform/errored-runs]]',
      client_url: ENDPOINT,
      event_types: ['job.run.errored'],
      active: true,
    });
    expect(await api().get(created[0]!.id)).toBeNull(); // in account 2 only
  });
});

describe('a dbt Core project', () => {
  // A dbt project's repository: dbt_project.yml, a stand-in for dbt on PATH, and @jobhooks/dbt by name;
  // its CI replaces `dbt build` with `npx jobhooks-dbt run -- dbt build`. Its events go to account 3, whose one
  // webhook points at a receiver on 127.0.0.1.
  let dbt: DbtProject;
  let receiver: Receiver;
  let hmacSecret: string;
  let runnerToken: string;

  let installWarningsOfDbt: string[];

  beforeAll(async () => {
    dbt = dbtProject();
    write(join(dbt.dir, '.npmrc'), `@jobhooks:registry=${registry}\n`);
    write(
      join(dbt.dir, 'package.json'),
      JSON.stringify({ name: 'jaffle-shop', private: true, devDependencies: { '@jobhooks/dbt': version } }),
    );
    installWarningsOfDbt = installWarnings((await npmInstall(dbt.dir)).stderr);
    const jobhooks = (args: string[]) =>
      sh('jobhooks', args, serviceDir, { JOBHOOKS_DB: join(root, 'data', 'jobhooks.db') });
    await jobhooks(['account', 'create', '--id', '3', '--name', 'Analytics']);
    runnerToken = (await jobhooks(['token', 'create', '--account', '3', '--permission', 'Job Runner'])).stdout.trim();
    receiver = await startReceiver();
    const created = await api(
      3,
      (await jobhooks(['token', 'create', '--account', '3', '--permission', 'Account Admin'])).stdout.trim(),
    ).create({
      name: 'dbt runs',
      client_url: `${receiver.url}/dbt`,
      event_types: ['job.run.started', 'job.run.errored', 'job.run.completed'],
      job_ids: [42],
    });
    hmacSecret = created.hmac_secret;
  });
  afterAll(async () => {
    await receiver?.close();
    dbt?.close();
  });

  test('@jobhooks/dbt installs by name with the client only, without a warning: none of the service or the IaC tools', () => {
    expect(installWarningsOfDbt).toEqual([]);
    const lock = JSON.parse(readFileSync(join(dbt.dir, 'node_modules', '.package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const installed = Object.keys(lock.packages).map((path) => path.slice(path.lastIndexOf('node_modules/') + 13));
    expect(readdirSync(join(dbt.dir, 'node_modules', '@jobhooks')).sort()).toEqual(['client', 'dbt']);
    for (const unused of [
      'fastify',
      'better-sqlite3',
      'pg',
      '@pulumi',
      'cdktf',
      'constructs',
      '@grpc',
      'jobhooks',
      'yaml',
    ])
      expect(installed.filter((name) => name === unused || name.startsWith(`${unused}/`))).toEqual([]);
  });

  test('`npx jobhooks-dbt run -- dbt build` in CI: dbt’s exit code, and the signed started, errored and completed', async () => {
    const env = {
      ...dbt.env({ version: DBT_VERSIONS[5]!, scenario: SCENARIOS.modelError }),
      JOBHOOKS_HOST_URL: hostUrl,
      JOBHOOKS_ACCOUNT_ID: '3',
      JOBHOOKS_TOKEN: runnerToken,
      JOBHOOKS_DBT_JOB_ID: '42',
      GITLAB_CI: 'true',
      CI_PIPELINE_ID: '900',
      CI_JOB_ID: '901',
    };
    const result = await shExit('npx', ['--no-install', 'jobhooks-dbt', 'run', '--', 'dbt', 'build'], dbt.dir, env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Running with dbt=1.10.11');
    await waitFor(() => receiver.requests.length >= 3, 'three deliveries');
    const payloads = receiver.requests.map((r) => JSON.parse(r.body.toString()) as DeliveryPayload);
    expect(new Set(payloads.map((p) => p.eventType))).toEqual(
      new Set(['job.run.started', 'job.run.errored', 'job.run.completed']),
    );
    for (const request of receiver.requests)
      expect(isGenuine(hmacSecret, request.body, request.headers.authorization)).toBe(true);
    const completed = payloads.find((p) => p.eventType === 'job.run.completed')!;
    expect(completed).toMatchObject({
      accountId: 3,
      data: { runId: 'gitlab-900-901-42', dbtVersion: '1.10.11', projectName: 'jaffle_shop', runStatusCode: 20 },
    });
    expect(completed.data.runStatusMessage).toContain(
      'model.jaffle_shop.orders (error): Database Error in model orders',
    );
    // Installed from the registry: a folder of its own, not a link back into the checkout.
    expect(lstatSync(join(dbt.dir, 'node_modules', '@jobhooks', 'dbt')).isSymbolicLink()).toBe(false);
  });
});
