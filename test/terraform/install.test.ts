// `jobhooks-terraform-provider install` as a user meets it, with the real terraform and no CLI configuration:
// the provider goes where Terraform looks by itself (terraform.d/plugins of a configuration or of each stack of a
// CDKTF app, ~/.terraform.d/plugins with --user), the same program for every platform, locked; and when the
// program cannot start (no node, a node too old), Terraform's own output says why.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { installTerraformProvider } from '../../provider/terraform/src/install';
import { runCommand } from '../support/run-command';
import { lockedHashes, terraformOnPath, webhookConfiguration } from '../support/terraform';

jest.setTimeout(120_000);

const CHECKOUT = resolve(__dirname, '..', '..');
const INSTALLER = join(CHECKOUT, 'provider', 'terraform', 'bin', 'jobhooks-terraform-provider.js');
const PLATFORMS = ['darwin_amd64', 'darwin_arm64', 'linux_amd64', 'linux_arm64'];
const PACKAGES = 'registry.terraform.io/dbt-labs/dbtcloud/1.12.0';
const MAIN_TF = webhookConfiguration();

let root: string;
/** A bin/ folder holding terraform alone (a link to it): a PATH with no node, wherever node is installed. */
let terraformOnly: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'jobhooks-tf-install-'));
  terraformOnly = join(root, 'terraform-only-bin');
  mkdirSync(terraformOnly);
  symlinkSync(terraformOnPath(), join(terraformOnly, 'terraform'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A new folder under the test's root, with the given files. */
function folder(name: string, files: Record<string, string> = {}): string {
  const dir = join(root, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A user's shell: PATH, a HOME of its own, no TF_CLI_CONFIG_FILE, no telemetry; exit code and output, never a throw. */
async function sh(
  command: string,
  args: string[],
  cwd: string,
  home: string,
  path = process.env.PATH ?? '',
  env: Record<string, string> = {},
) {
  const result = await runCommand(command, args, cwd, { PATH: path, HOME: home, CHECKPOINT_DISABLE: '1', ...env });
  return { ...result, all: `${result.stdout}\n${result.stderr}` };
}
const install = (cwd: string, home: string, args: string[] = []) =>
  sh(process.execPath, [INSTALLER, 'install', ...args], cwd, home);
const terraform = (args: string[], cwd: string, home: string, path?: string, env?: Record<string, string>) =>
  sh('terraform', [...args, '-no-color'], cwd, home, path, env);
/** Terraform wraps its messages at 80 columns: one line, single spaces. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('a folder holding only main.tf', () => {
  let config: string;
  let home: string;
  /** The first `terraform init` there, which every test below needs. */
  let init: Awaited<ReturnType<typeof terraform>>;
  beforeAll(async () => {
    config = folder('hcl-only', { 'main.tf': MAIN_TF });
    home = folder('hcl-only-home');
    const installed = await install(config, home);
    expect(installed).toMatchObject({ code: 0, stderr: '' });
    expect(installed.stdout).toContain(`in ${join(config, 'terraform.d', 'plugins')}`);
    expect(installed.stdout).toContain(
      `Locked the checksum of every platform in ${join(config, '.terraform.lock.hcl')}.`,
    );
    expect(installed.stdout).not.toContain('TF_CLI_CONFIG_FILE=');
    expect(installed.stdout).toContain(
      'Run terraform in this folder, not with -chdir from another one: Terraform looks for terraform.d/plugins in the folder it starts in (install --user or --dir serve any folder).',
    );
    init = await terraform(['init', '-input=false'], config, home);
  });

  test('init prints no warning, with no CLI configuration and no Node project, and validate starts the provider', async () => {
    expect(init.code).toBe(0);
    expect(init.all).toContain('Installed dbt-labs/dbtcloud v1.12.0');
    expect(init.all).not.toMatch(/warning/i);
    // validate asks the provider for its schema: the program started from terraform.d/plugins.
    expect(await terraform(['validate'], config, home)).toMatchObject({ code: 0 });
    expect(readdirSync(config).sort()).toEqual(['.terraform', '.terraform.lock.hcl', 'main.tf', 'terraform.d']);
    // In the home, only the provider's compiled code, in the user's cache folder.
    expect(readdirSync(home)).toEqual(['.cache']);
  });

  test("the provider's starts after the first take its compiled code from a cache only the user can read", async () => {
    const cacheDir = join(home, '.cache', 'jobhooks', 'terraform-provider');
    expect(await terraform(['validate'], config, home)).toMatchObject({ code: 0 });
    const [entry, ...others] = readdirSync(cacheDir);
    expect(others).toEqual([]);
    expect(entry).toMatch(/^[0-9a-f]{64}\.v8$/);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const file = join(cacheDir, entry!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A start that took the cache leaves it as it was; one that compiled the program would write it again.
    const written = new Date('2020-01-01T00:00:00Z');
    utimesSync(file, written, written);
    expect(await terraform(['validate'], config, home)).toMatchObject({ code: 0 });
    expect(statSync(file).mtime).toEqual(written);
    // A cache V8 refuses (here: cut short) is compiled past and written again.
    truncateSync(file, 1024);
    expect(await terraform(['validate'], config, home)).toMatchObject({ code: 0 });
    expect(statSync(file).size).toBeGreaterThan(1024);
  });

  test('the lock file holds one checksum, that of every platform, the same from a second folder', async () => {
    expect(lockedHashes(config)).toHaveLength(1);
    const second = folder('hcl-only-again', { 'main.tf': MAIN_TF });
    expect((await install(second, home)).code).toBe(0);
    expect(lockedHashes(second)).toEqual(lockedHashes(config));
  });

  test('a lock file written on another platform alone holds here: init takes the provider with no warning', async () => {
    // As a Mac user's `terraform providers lock -platform=darwin_arm64` (or a plain init there) writes it.
    const elsewhere = folder('locked-on-a-mac', { 'main.tf': MAIN_TF });
    expect((await install(elsewhere, home)).code).toBe(0);
    rmSync(join(elsewhere, '.terraform.lock.hcl'));
    const darwinOnly = ['providers', 'lock', '-fs-mirror=terraform.d/plugins', '-platform=darwin_arm64'];
    expect(await terraform([...darwinOnly, 'registry.terraform.io/dbt-labs/dbtcloud'], elsewhere, home)).toMatchObject({
      code: 0,
    });
    expect(lockedHashes(elsewhere)).toEqual(lockedHashes(config));
    const initHere = await terraform(['init', '-input=false'], elsewhere, home);
    expect(initHere.code).toBe(0);
    expect(initHere.all).not.toMatch(/warning/i);
  });

  test('the mirror holds the same program for every platform, naming no path of this machine', () => {
    const mirror = join(config, 'terraform.d', 'plugins', PACKAGES);
    expect(readdirSync(mirror).sort()).toEqual(PLATFORMS);
    const packages = PLATFORMS.map((platform) => {
      expect(readdirSync(join(mirror, platform)).sort()).toEqual([
        'provider-program.js',
        'terraform-provider-dbtcloud_v1.12.0',
      ]);
      const read = (name: string) => readFileSync(join(mirror, platform, name), 'utf8');
      return read('terraform-provider-dbtcloud_v1.12.0') + read('provider-program.js');
    });
    expect(new Set(packages).size).toBe(1);
    expect(packages[0]!.split('\n')[0]).toBe('#!/bin/sh');
    for (const local of [CHECKOUT, root, tmpdir() + '/', 'node_modules/']) expect(packages[0]).not.toContain(local);
  });

  test("installed again, each platform's folder holds only this release's files, and the checksum holds", async () => {
    const locked = lockedHashes(config);
    const platformDir = join(config, 'terraform.d', 'plugins', PACKAGES, 'linux_amd64');
    writeFileSync(join(platformDir, 'left-by-another-release.js'), 'x');
    expect((await install(config, home)).code).toBe(0);
    expect(readdirSync(platformDir).sort()).toEqual(['provider-program.js', 'terraform-provider-dbtcloud_v1.12.0']);
    expect(lockedHashes(config)).toEqual(locked);
  });

  test('with no node on PATH, terraform shows why the provider cannot start', async () => {
    const validate = await terraform(['validate'], config, home, terraformOnly);
    expect(validate.code).toBe(1);
    expect(flat(validate.all)).toContain(
      'Unrecognized remote plugin message: The jobhooks Terraform provider needs Node.js 20.19 or later on PATH, and there is no node on PATH.',
    );
  });

  // Real Nodes from the npm registry's node-linux-<arch> packages (npm caches them after the first run): 20.18,
  // just below the floor, and 14, too old to parse the program at all.
  test.each(['20.18.3', '14.21.3'])(
    'with a Node too old on PATH (%s), terraform shows which one and what is needed',
    async (version) => {
      const oldNode = folder(`node-${version}`);
      const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
      const packed = await sh('npm', ['pack', '--silent', `node-linux-${arch}@${version}`], oldNode, process.env.HOME!);
      expect(packed.code).toBe(0);
      await sh('tar', ['xzf', packed.stdout.trim(), 'package/bin/node'], oldNode, process.env.HOME!);
      const bin = join(oldNode, 'package', 'bin');
      const validate = await terraform(['validate'], config, home, `${bin}:${terraformOnly}`);
      expect(validate.code).toBe(1);
      expect(flat(validate.all)).toContain(
        `Unrecognized remote plugin message: The jobhooks Terraform provider needs Node.js 20.19 or later, and "node" on PATH is v${version} (${join(bin, 'node')}): install a newer Node.js.`,
      );
    },
  );
});

test('with modules not installed yet, install says to run terraform init, then the lock command', async () => {
  const config = folder('with-module', {
    'main.tf': `${MAIN_TF}\nmodule "alerts" {\n  source = "./alerts"\n}\n`,
    'alerts/main.tf': '\n',
  });
  const installed = await install(config, folder('with-module-home'));
  expect(installed).toMatchObject({ code: 0, stderr: '' });
  expect(flat(installed.stdout)).toContain(
    `The configuration's modules are not installed yet, so no checksum was locked: run "terraform init", then "terraform providers lock -fs-mirror=terraform.d/plugins -platform=darwin_amd64 -platform=darwin_arm64 -platform=linux_amd64 -platform=linux_arm64 registry.terraform.io/dbt-labs/dbtcloud".`,
  );
});

test('below a package.json with "type": "module", terraform starts the provider (node loads it as CommonJS, whatever its name)', async () => {
  // A Node project of the ESM kind around the configuration: `node FILE` would refuse a FILE named *.0 there.
  const project = folder('esm-project', {
    'package.json': '{ "type": "module" }\n',
    'infrastructure/main.tf': MAIN_TF,
  });
  const config = join(project, 'infrastructure');
  const home = folder('esm-home');
  expect(await install(config, home)).toMatchObject({ code: 0, stderr: '' });
  expect(await terraform(['init', '-input=false'], config, home)).toMatchObject({ code: 0 });
  const validate = await terraform(['validate'], config, home);
  expect(flat(validate.all)).not.toContain('handshake');
  expect(validate.code).toBe(0);
});

test('install before the configuration exists says how to lock the checksums once it does', async () => {
  const empty = folder('empty');
  const installed = await install(empty, folder('empty-home'));
  expect(installed.code).toBe(0);
  expect(flat(installed.stdout)).toContain(
    `There is no Terraform configuration (.tf file) here yet: once there is, lock every platform's checksum with "terraform providers lock -fs-mirror=terraform.d/plugins -platform=darwin_amd64 -platform=darwin_arm64 -platform=linux_amd64 -platform=linux_arm64 registry.terraform.io/dbt-labs/dbtcloud".`,
  );
  expect(existsSync(join(empty, '.terraform.lock.hcl'))).toBe(false);
});

describe('a CDKTF app', () => {
  const stack = {
    terraform: { required_providers: { dbtcloud: { source: 'dbt-labs/dbtcloud', version: '~> 1.12' } } },
    provider: { dbtcloud: [{}] },
  };
  /** An app folder with cdktf.json and the given stacks already synthesized (cdktf.out/stacks/<name>/cdk.tf.json). */
  const cdktfApp = (name: string, stacks: string[], settings: Record<string, string> = {}) =>
    folder(name, {
      'cdktf.json': JSON.stringify({ language: 'typescript', app: 'npx ts-node main.ts', ...settings }),
      ...Object.fromEntries(stacks.map((each) => [`cdktf.out/stacks/${each}/cdk.tf.json`, JSON.stringify(stack)])),
    });

  test("the provider goes into each stack's terraform.d/plugins, each stack locked: init prints no warning, and the user's Terraform files are untouched", async () => {
    const home = folder('cdktf-home');
    const userConfig = `plugin_cache_dir = "${join(home, 'plugin-cache')}"\ncredentials "app.terraform.io" { token = "x" }\n`;
    writeFileSync(join(home, '.terraformrc'), userConfig);
    mkdirSync(join(home, 'plugin-cache'));
    const app = cdktfApp('cdktf-app', ['webhooks', 'alerts']);

    const installed = await install(app, home);
    expect(installed).toMatchObject({ code: 0, stderr: '' });
    const stackDirs = ['alerts', 'webhooks'].map((each) => join(app, 'cdktf.out', 'stacks', each));
    expect(installed.stdout).toContain(
      `in ${stackDirs.map((dir) => join(dir, 'terraform.d', 'plugins')).join(', ')}, where Terraform finds it for this app's stacks`,
    );
    for (const stackDir of stackDirs) {
      expect(installed.stdout).toContain(
        `Locked the checksum of every platform in ${join(stackDir, '.terraform.lock.hcl')}.`,
      );
      expect(readdirSync(join(stackDir, 'terraform.d', 'plugins', PACKAGES)).sort()).toEqual(PLATFORMS);
      expect(lockedHashes(stackDir)).toHaveLength(1);
      const init = await terraform(['init', '-input=false'], stackDir, home);
      expect(init.code).toBe(0);
      // The second stack takes it from the user's plugin cache, which the first one filled.
      expect(init.all).toMatch(/(Installed|Using) dbt-labs\/dbtcloud v1\.12\.0/);
      expect(init.all).not.toMatch(/warning/i);
      expect(await terraform(['validate'], stackDir, home)).toMatchObject({ code: 0 });
    }
    expect(lockedHashes(stackDirs[1]!)).toEqual(lockedHashes(stackDirs[0]!));
    // Nothing for the user's other configurations: no ~/.terraform.d, the CLI configuration as it was; only the
    // cache of the provider's compiled code, which its starts wrote.
    expect(readdirSync(home).sort()).toEqual(['.cache', '.terraformrc', 'plugin-cache']);
    expect(readFileSync(join(home, '.terraformrc'), 'utf8')).toBe(userConfig);
    expect(existsSync(join(app, 'terraform.d'))).toBe(false);
  });

  test('with no stack synthesized yet, install refuses and says to synth first (in the output folder cdktf.json names)', async () => {
    const home = folder('cdktf-unsynthesized-home');
    const app = cdktfApp('cdktf-unsynthesized', [], { output: 'synthesized' });
    const installed = await install(app, home);
    expect(installed.code).toBe(2);
    expect(installed.stderr).toBe(
      'jobhooks-terraform-provider: This CDKTF app has no synthesized stack yet (no synthesized/stacks/*/cdk.tf.json), and the provider goes into each stack\'s folder: run "npx cdktf synth" (or "npx cdktn synth"), then this command again.\n',
    );
    expect(readdirSync(app)).toEqual(['cdktf.json']);
    expect(readdirSync(home)).toEqual([]);
  });

  test('--user: into ~/.terraform.d/plugins, saying that it serves every configuration of the user and how to undo it; the stacks are locked against it', async () => {
    const home = folder('cdktf-user-home');
    const app = cdktfApp('cdktf-user', ['webhooks']);
    const installed = await install(app, home, ['--user']);
    expect(installed).toMatchObject({ code: 0, stderr: '' });
    const userMirror = join(home, '.terraform.d', 'plugins');
    expect(flat(installed.stdout)).toContain(
      `This provider now serves registry.terraform.io/dbt-labs/dbtcloud to every Terraform configuration and CDKTF stack of this user, in place of the public provider: Terraform installs that address from nowhere else, so a configuration that asks for another version fails with "no available releases match". To undo it: rm -r ${join(userMirror, 'registry.terraform.io', 'dbt-labs', 'dbtcloud')}`,
    );
    expect(installed.stdout).toContain('--source jobhooks/dbtcloud');
    expect(readdirSync(join(userMirror, PACKAGES)).sort()).toEqual(PLATFORMS);
    const stackDir = join(app, 'cdktf.out', 'stacks', 'webhooks');
    expect(existsSync(join(stackDir, 'terraform.d'))).toBe(false);
    expect(lockedHashes(stackDir)).toHaveLength(1);
    const init = await terraform(['init', '-input=false'], stackDir, home);
    expect(init.code).toBe(0);
    expect(init.all).not.toMatch(/warning/i);
  });
});

test('an earlier install in ./.jobhooks/terraform, whose launcher needs the removed ./plugin export, is laid out again and works while TF_CLI_CONFIG_FILE points at it', async () => {
  // What "npx jobhooks-terraform-provider install" wrote before it used Terraform's implied folders.
  const launcher = `#!/usr/bin/env node
'use strict';
const { dirname } = require('node:path');
const { realpathSync } = require('node:fs');
const near = [process.cwd(), dirname(realpathSync(__filename))];
require(require.resolve('@jobhooks/terraform-provider/plugin', { paths: near })).main();
`;
  const config = folder('upgraded', {
    'main.tf': MAIN_TF,
    [`.jobhooks/terraform/mirror/${PACKAGES}/linux_amd64/terraform-provider-dbtcloud_v1.12.0`]: launcher,
  });
  const earlier = join(config, '.jobhooks', 'terraform');
  const earlierMirror = join(earlier, 'mirror');
  const cliConfig = join(earlier, 'terraform.rc');
  writeFileSync(
    cliConfig,
    `provider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(earlierMirror)}\n    include = ["registry.terraform.io/dbt-labs/dbtcloud"]\n  }\n  direct {\n    exclude = ["registry.terraform.io/dbt-labs/dbtcloud"]\n  }\n}\n`,
  );
  const home = folder('upgraded-home');

  const installed = await install(config, home);
  expect(installed).toMatchObject({ code: 0, stderr: '' });
  expect(flat(installed.stdout)).toContain(
    `Refreshed the earlier install in ${earlier}, whose launcher needed a part of @jobhooks/terraform-provider that is gone (Terraform failed its handshake): it works again while TF_CLI_CONFIG_FILE points at ${cliConfig}, but it is needed no more: unset TF_CLI_CONFIG_FILE and remove ${earlier}.`,
  );
  expect(readdirSync(join(earlierMirror, PACKAGES)).sort()).toEqual(PLATFORMS);
  const env = { TF_CLI_CONFIG_FILE: cliConfig };
  const init = await terraform(['init', '-input=false'], config, home, undefined, env);
  expect(init.code).toBe(0);
  expect(init.all).not.toMatch(/warning/i);
  expect(await terraform(['validate'], config, home, undefined, env)).toMatchObject({ code: 0 });
});

test('a CLI configuration with a provider_installation block of its own is left as it was, and the block to merge is printed', async () => {
  const home = folder('custom-home');
  const userConfig = `provider_installation {\n  direct {}\n}\n`;
  writeFileSync(join(home, '.terraformrc'), userConfig);
  const config = folder('custom', { 'main.tf': MAIN_TF });

  const installed = await install(config, home);
  expect(installed.code).toBe(0);
  expect(readFileSync(join(home, '.terraformrc'), 'utf8')).toBe(userConfig);
  const mirror = join(config, 'terraform.d', 'plugins');
  const block = [
    'provider_installation {',
    '  filesystem_mirror {',
    `    path    = ${JSON.stringify(mirror)}`,
    '    include = ["registry.terraform.io/dbt-labs/dbtcloud"]',
    '  }',
    '  direct {',
    '    exclude = ["registry.terraform.io/dbt-labs/dbtcloud"]',
    '  }',
    '}',
  ].join('\n');
  expect(installed.stdout).toContain(`${join(home, '.terraformrc')} has a provider_installation block of its own`);
  expect(installed.stdout).toContain(block);

  // Merged as printed, init takes the provider from the mirror.
  writeFileSync(join(home, '.terraformrc'), `${block}\n`);
  const init = await terraform(['init', '-input=false'], config, home);
  expect(init.code).toBe(0);
  expect(init.all).not.toMatch(/warning/i);
});

test('--dir keeps writing a mirror and a CLI configuration there, and prints the TF_CLI_CONFIG_FILE line', async () => {
  const config = folder('explicit', { 'main.tf': MAIN_TF });
  const dir = join(root, 'explicit-mirror');
  const installed = await install(config, folder('explicit-home'), ['--dir', dir]);
  expect(installed.code).toBe(0);
  expect(installed.stdout).toContain(`export TF_CLI_CONFIG_FILE=${join(dir, 'terraform.rc')}\n`);
  expect(readFileSync(join(dir, 'terraform.rc'), 'utf8')).toContain(`path    = ${JSON.stringify(join(dir, 'mirror'))}`);
  expect(readdirSync(join(dir, 'mirror', PACKAGES)).sort()).toEqual(PLATFORMS);
  expect(existsSync(join(config, 'terraform.d'))).toBe(false);
});

describe('installTerraformProvider, called as a library', () => {
  const options = (name: string) => {
    const home = folder(`${name}-home`);
    return { cwd: folder(name, { 'main.tf': MAIN_TF }), home, env: { PATH: process.env.PATH, HOME: home } };
  };

  test('a relative dir is taken from the cwd option, not from the working directory of the process', () => {
    const { cwd, home, env } = options('library-dir');
    const installation = installTerraformProvider({ cwd, home, env, dir: 'jobhooks-library-mirror' });
    expect(installation.mirrorDirs).toEqual([join(cwd, 'jobhooks-library-mirror', 'mirror')]);
    expect(installation.cliConfigFile).toBe(join(cwd, 'jobhooks-library-mirror', 'terraform.rc'));
    expect(existsSync(join(cwd, 'jobhooks-library-mirror', 'mirror', PACKAGES))).toBe(true);
    expect(existsSync(join(process.cwd(), 'jobhooks-library-mirror'))).toBe(false);
  });

  test('on Windows, install refuses with one sentence, laying nothing out', () => {
    const { cwd, home, env } = options('library-windows');
    expect(() => installTerraformProvider({ cwd, home, env, platform: 'win32' })).toThrow(
      'The jobhooks Terraform provider runs on Linux and macOS; on Windows, install and run Terraform in WSL.',
    );
    expect(readdirSync(cwd)).toEqual(['main.tf']);
  });
});
