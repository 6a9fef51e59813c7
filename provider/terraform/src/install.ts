// `install`: puts the provider where Terraform finds it with the user's own CLI configuration untouched (one of
// Terraform's implied local mirror directories), under the address of the public provider
// (registry.terraform.io/dbt-labs/dbtcloud), and locks every platform's checksum. `--dir` keeps the older way:
// an explicit mirror and a CLI configuration to point TF_CLI_CONFIG_FILE at.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DBTCLOUD_PROVIDER_ADDRESS, DBTCLOUD_PROVIDER_VERSION } from '@jobhooks/client';
import { holdsConfiguration, lockCommand, type LockOutcome, lockEveryPlatform } from './lock';
import { addressesIn, layOutMirror, refreshMirror, TERRAFORM_PLATFORMS } from './mirror';

export const PROVIDER_ADDRESS = DBTCLOUD_PROVIDER_ADDRESS;
/**
 * Where install put an explicit mirror and CLI configuration before it used Terraform's implied folders (its
 * default --dir then). The launcher there loaded the package's ./plugin export, which is gone.
 */
export const EARLIER_INSTALL_DIR = join('.jobhooks', 'terraform');
/** The public provider release whose interface this one serves; satisfies the usual `~> 1.0` constraints. */
export const DEFAULT_PROVIDER_VERSION = DBTCLOUD_PROVIDER_VERSION;
/** A source address as Terraform writes it (`[HOST/]NAMESPACE/TYPE`), in full; the registry's host when none is given. */
export function providerAddress(source: string): { address: string; type: string } {
  const parts = source.split('/');
  const name = /^[a-z0-9][a-z0-9-]*$/;
  const valid =
    (parts.length === 2 || parts.length === 3) &&
    parts.slice(-2).every((part) => name.test(part)) &&
    (parts.length === 2 || /^[a-z0-9.-]+(:\d+)?$/.test(parts[0]!));
  if (!valid)
    throw new Error(`--source must look like namespace/type or host/namespace/type (lowercase), not "${source}"`);
  const address = parts.length === 2 ? `registry.terraform.io/${source}` : source;
  return { address, type: parts[parts.length - 1]! };
}

export interface InstallOptions {
  /** The folder of the Terraform configuration or CDKTF app (the working directory by default). */
  cwd?: string;
  /** The user's home folder, for ~/.terraform.d/plugins and ~/.terraformrc. */
  home?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * An explicit mirror and CLI configuration in this folder (TF_CLI_CONFIG_FILE), instead of the implied ones;
   * a relative one is taken from `cwd`.
   */
  dir?: string;
  /**
   * Into the user's ~/.terraform.d/plugins, which serves every configuration and stack of that user, in place of
   * the public provider at that address.
   */
  user?: boolean;
  version?: string;
  /**
   * The provider source address to serve, `dbt-labs/dbtcloud` by default. Another one (say `jobhooks/dbtcloud`)
   * lets a configuration use the public provider for dbt Cloud and this one, by another local name, for webhooks.
   */
  source?: string;
  /** The terraform command that locks the checksums; `terraform` from PATH by default. */
  terraform?: string;
  /** The operating system install runs on (process.platform by default): Linux and macOS only. */
  platform?: NodeJS.Platform;
}

/**
 * Where the provider went: Terraform's implied directories (a configuration's, each stack's of a CDKTF app, the
 * user's) need no CLI configuration; `--dir` needs one.
 */
export type InstallTarget = 'configuration' | 'cdktf-app' | 'user' | 'explicit-mirror';

/** One folder Terraform runs in (the configuration's, or a CDKTF stack's) and its lock file. */
export interface LockedFolder {
  dir: string;
  /** Whether every platform's checksum is in the folder's lock file, and if not, why. */
  lock: LockOutcome;
}

export interface Installation {
  target: InstallTarget;
  /** The full address the mirror serves, e.g. registry.terraform.io/dbt-labs/dbtcloud. */
  address: string;
  version: string;
  /** Where the provider went: one folder, or one per synthesized stack of a CDKTF app. */
  mirrorDirs: string[];
  platforms: readonly string[];
  /** Only for `--dir`: the CLI configuration to point TF_CLI_CONFIG_FILE at. */
  cliConfigFile?: string;
  /** The folders whose lock file the install wrote: the configuration's, or every stack's of a CDKTF app. */
  locked: LockedFolder[];
  /** The mirror of an earlier install in this folder (./.jobhooks/terraform), laid out again with this program. */
  refreshedEarlierInstall?: string;
  /** Why nothing was locked (no configuration here yet, no stack synthesized yet), and the command for later. */
  notLocked?: string;
  /**
   * The user's CLI configuration, when it has a provider_installation block of its own: Terraform then looks
   * only where that block says, so the block must take in the mirror (the install cannot edit the user's file).
   */
  customCliConfigFile?: string;
}

/** The CLI configuration file Terraform reads for this user (TF_CLI_CONFIG_FILE, or ~/.terraformrc). */
export function userCliConfigFile(env: NodeJS.ProcessEnv, home: string): string {
  return env.TF_CLI_CONFIG_FILE || env.TERRAFORM_CONFIG || join(home, '.terraformrc');
}

/** The provider_installation block that takes the given addresses from the mirrors and the rest as before. */
export function providerInstallationBlock(
  mirrorDirs: string | readonly string[],
  addresses: readonly string[],
): string {
  const list = addresses.map((each) => JSON.stringify(each)).join(', ');
  const mirrors = (typeof mirrorDirs === 'string' ? [mirrorDirs] : mirrorDirs).flatMap((mirrorDir) => [
    '  filesystem_mirror {',
    `    path    = ${JSON.stringify(mirrorDir)}`,
    `    include = [${list}]`,
    '  }',
  ]);
  return ['provider_installation {', ...mirrors, '  direct {', `    exclude = [${list}]`, '  }', '}'].join('\n');
}

/** The stacks a CDKTF or cdktn app has synthesized: the folders under its output's stacks/ that hold one. */
export function synthesizedStacks(app: string): { outdir: string; stacks: string[] } {
  const { output } = JSON.parse(readFileSync(join(app, 'cdktf.json'), 'utf8')) as { output?: unknown };
  const outdir = resolve(app, typeof output === 'string' && output !== '' ? output : 'cdktf.out');
  const stacksDir = join(outdir, 'stacks');
  if (!existsSync(stacksDir)) return { outdir, stacks: [] };
  const stacks = readdirSync(stacksDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(stacksDir, entry.name))
    .filter(holdsConfiguration)
    .sort();
  return { outdir, stacks };
}

/** "npx cdktf synth" as a sentence names it: the step that makes the stack folders the provider goes into. */
const SYNTH = '"npx cdktf synth" (or "npx cdktn synth")';

/**
 * Where the provider goes: an explicit mirror (--dir), the user's ~/.terraform.d/plugins (--user), each stack's
 * own terraform.d/plugins in a CDKTF or cdktn app (the app's stacks only, not every configuration of the user),
 * or the configuration's terraform.d/plugins.
 */
function chooseTarget(
  options: InstallOptions,
  cwd: string,
  home: string,
  app: { outdir: string; stacks: string[] } | undefined,
): { target: InstallTarget; mirrorDirs: string[] } {
  if (options.dir !== undefined)
    return { target: 'explicit-mirror', mirrorDirs: [join(resolve(cwd, options.dir), 'mirror')] };
  if (options.user) return { target: 'user', mirrorDirs: [join(home, '.terraform.d', 'plugins')] };
  if (app === undefined) return { target: 'configuration', mirrorDirs: [join(cwd, 'terraform.d', 'plugins')] };
  if (app.stacks.length === 0) {
    throw new Error(
      `This CDKTF app has no synthesized stack yet (no ${relative(cwd, app.outdir)}/stacks/*/cdk.tf.json), and the provider goes into each stack's folder: run ${SYNTH}, then this command again.`,
    );
  }
  return { target: 'cdktf-app', mirrorDirs: app.stacks.map((stack) => join(stack, 'terraform.d', 'plugins')) };
}

/** The user's CLI configuration, when a provider_installation block in it decides where Terraform looks. */
function customCliConfig(env: NodeJS.ProcessEnv, home: string): string | undefined {
  const file = userCliConfigFile(env, home);
  return existsSync(file) && /^\s*provider_installation\s*\{/m.test(readFileSync(file, 'utf8')) ? file : undefined;
}

/** `--dir`: the CLI configuration that takes from the mirror every address it holds (a second --source adds one). */
function writeCliConfig(dir: string, mirrorDir: string): string {
  const served = addressesIn(mirrorDir);
  const file = join(dir, 'terraform.rc');
  writeFileSync(
    file,
    `# Written by "jobhooks-terraform-provider install": ${served.join(', ')} from the local mirror, everything else as usual.\n${providerInstallationBlock(mirrorDir, served)}\n`,
  );
  return file;
}

/**
 * An earlier install's ./.jobhooks/terraform, which a TF_CLI_CONFIG_FILE may still point at: its launcher fails
 * Terraform's handshake now, so it gets this program (the same bytes as the new mirror, so the lock file holds).
 */
function refreshEarlierInstall(cwd: string): string | undefined {
  const dir = join(cwd, EARLIER_INSTALL_DIR);
  const mirrorDir = join(dir, 'mirror');
  if (!existsSync(join(dir, 'terraform.rc')) || !existsSync(mirrorDir)) return undefined;
  refreshMirror(mirrorDir);
  writeCliConfig(dir, mirrorDir);
  return dir;
}

export function installTerraformProvider(options: InstallOptions = {}): Installation {
  // The executable starts with a line of sh, and the layout covers linux and darwin only: Terraform on Windows
  // could not start it, and would look in %APPDATA%\\terraform.d rather than ~/.terraform.d.
  if ((options.platform ?? process.platform) === 'win32')
    throw new Error(
      'The jobhooks Terraform provider runs on Linux and macOS; on Windows, install and run Terraform in WSL.',
    );
  const cwd = resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  const home = options.home ?? env.HOME ?? homedir();
  const version = options.version ?? DEFAULT_PROVIDER_VERSION;
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`--version must look like 1.2.3, not "${version}"`);
  if (options.dir !== undefined && options.user) throw new Error('--dir and --user name two places: give one');
  const { address, type } =
    options.source === undefined ? { address: PROVIDER_ADDRESS, type: 'dbtcloud' } : providerAddress(options.source);
  // Terraform runs in the configuration's folder, or, for a CDKTF or cdktn app, in each of its stack folders,
  // which a synth rewrites but keeps.
  const app = existsSync(join(cwd, 'cdktf.json')) ? synthesizedStacks(cwd) : undefined;
  const { target, mirrorDirs } = chooseTarget(options, cwd, home, app);
  for (const mirrorDir of mirrorDirs) {
    mkdirSync(mirrorDir, { recursive: true });
    layOutMirror(mirrorDir, { address, type, version });
  }
  const installation: Installation = {
    target,
    address,
    version,
    mirrorDirs,
    platforms: TERRAFORM_PLATFORMS,
    locked: [],
  };
  if (target === 'explicit-mirror') {
    // Every address and version the mirror already holds gets this program too, as the CLI configuration serves them.
    refreshMirror(mirrorDirs[0]!);
    installation.cliConfigFile = writeCliConfig(resolve(cwd, options.dir!), mirrorDirs[0]!);
  } else {
    installation.customCliConfigFile = customCliConfig(env, home);
    installation.refreshedEarlierInstall = refreshEarlierInstall(cwd);
  }

  // The mirror each folder's lock step reads: its own terraform.d/plugins for a stack, else the one mirror.
  const request = (folder: string) => ({
    cwd: folder,
    mirrorDir: target === 'cdktf-app' ? join(folder, 'terraform.d', 'plugins') : mirrorDirs[0]!,
    address,
    env,
    terraform: options.terraform,
  });
  if (app !== undefined && app.stacks.length === 0) {
    installation.notLocked = `This CDKTF app has no synthesized stack yet: after ${SYNTH}, run this command again, which locks every platform's checksum in each stack.`;
  } else if (app === undefined && !holdsConfiguration(cwd)) {
    installation.notLocked = `There is no Terraform configuration (.tf file) here yet: once there is, lock every platform's checksum with "terraform ${lockCommand(request(cwd)).join(' ')}".`;
  } else {
    const folders = app === undefined ? [cwd] : app.stacks;
    installation.locked = folders.map((folder) => ({ dir: folder, lock: lockEveryPlatform(request(folder)) }));
  }
  return installation;
}
