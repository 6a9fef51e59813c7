// `install`: puts the provider where Terraform finds it with the user's own CLI configuration untouched (one of
// Terraform's implied local mirror directories), under the address of the public provider
// (registry.terraform.io/dbt-labs/dbtcloud), and locks every platform's checksum. `--dir` keeps the older way:
// an explicit mirror and a CLI configuration to point TF_CLI_CONFIG_FILE at.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DBTCLOUD_PROVIDER_ADDRESS, DBTCLOUD_PROVIDER_VERSION } from '@jobhooks/client';
import { holdsConfiguration, lockCommand, type LockOutcome, lockEveryPlatform } from './lock';
import { addressesIn, layOutMirror, TERRAFORM_PLATFORMS } from './mirror';

export const PROVIDER_ADDRESS = DBTCLOUD_PROVIDER_ADDRESS;
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
  /** An explicit mirror and CLI configuration in this folder (TF_CLI_CONFIG_FILE), instead of the implied ones. */
  dir?: string;
  /** Into the user's ~/.terraform.d/plugins, which serves every configuration and stack of that user. */
  user?: boolean;
  version?: string;
  /**
   * The provider source address to serve, `dbt-labs/dbtcloud` by default. Another one (say `jobhooks/dbtcloud`)
   * lets a configuration use the public provider for dbt Cloud and this one, by another local name, for webhooks.
   */
  source?: string;
  /** The terraform command that locks the checksums; `terraform` from PATH by default. */
  terraform?: string;
}

/** Where the provider went: Terraform's implied directories need no CLI configuration; `--dir` needs one. */
export type InstallTarget = 'configuration' | 'cdktf-app' | 'user' | 'explicit-mirror';

export interface Installation {
  target: InstallTarget;
  /** The full address the mirror serves, e.g. registry.terraform.io/dbt-labs/dbtcloud. */
  address: string;
  version: string;
  mirrorDir: string;
  platforms: readonly string[];
  /** Only for `--dir`: the CLI configuration to point TF_CLI_CONFIG_FILE at. */
  cliConfigFile?: string;
  /** Whether every platform's checksum is in the configuration's lock file, and if not, why. */
  lock?: LockOutcome;
  /**
   * The user's CLI configuration, when it has a provider_installation block of its own: Terraform then looks
   * only where that block says, so the block must take in the mirror (the install cannot edit the user's file).
   */
  customCliConfigFile?: string;
}

/** The CLI configuration file Terraform reads for this user (TF_CLI_CONFIG_FILE, or ~/.terraformrc). */
export function cliConfigFileOf(env: NodeJS.ProcessEnv, home: string): string {
  return env.TF_CLI_CONFIG_FILE || env.TERRAFORM_CONFIG || join(home, '.terraformrc');
}

/** The provider_installation block that takes the given addresses from the mirror and the rest as before. */
export function providerInstallationBlock(mirrorDir: string, addresses: readonly string[]): string {
  const list = addresses.map((each) => JSON.stringify(each)).join(', ');
  return [
    'provider_installation {',
    '  filesystem_mirror {',
    `    path    = ${JSON.stringify(mirrorDir)}`,
    `    include = [${list}]`,
    '  }',
    '  direct {',
    `    exclude = [${list}]`,
    '  }',
    '}',
  ].join('\n');
}

/**
 * Where Terraform looks without being told: the working directory's terraform.d/plugins for a configuration
 * there; for a CDKTF or cdktn app, whose terraform runs in cdktf.out/stacks/<stack>, the user's own
 * ~/.terraform.d/plugins (a stack folder is rewritten by every synth).
 */
function chooseTarget(
  options: InstallOptions,
  cwd: string,
  home: string,
): { target: InstallTarget; mirrorDir: string } {
  if (options.dir !== undefined) return { target: 'explicit-mirror', mirrorDir: join(resolve(options.dir), 'mirror') };
  const userDir = join(home, '.terraform.d', 'plugins');
  if (options.user) return { target: 'user', mirrorDir: userDir };
  if (existsSync(join(cwd, 'cdktf.json'))) return { target: 'cdktf-app', mirrorDir: userDir };
  return { target: 'configuration', mirrorDir: join(cwd, 'terraform.d', 'plugins') };
}

export function installTerraformProvider(options: InstallOptions = {}): Installation {
  const cwd = resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  const home = options.home ?? env.HOME ?? homedir();
  const version = options.version ?? DEFAULT_PROVIDER_VERSION;
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`--version must look like 1.2.3, not "${version}"`);
  if (options.dir !== undefined && options.user) throw new Error('--dir and --user name two places: give one');
  const { address, type } =
    options.source === undefined ? { address: PROVIDER_ADDRESS, type: 'dbtcloud' } : providerAddress(options.source);
  const { target, mirrorDir } = chooseTarget(options, cwd, home);
  mkdirSync(mirrorDir, { recursive: true });
  layOutMirror(mirrorDir, { address, type, version });
  const installation: Installation = { target, address, version, mirrorDir, platforms: TERRAFORM_PLATFORMS };

  if (target === 'explicit-mirror') {
    // The configuration takes from the mirror every address it holds: installing under a second --source into
    // the same folder serves both.
    const served = addressesIn(mirrorDir);
    installation.cliConfigFile = join(resolve(options.dir!), 'terraform.rc');
    writeFileSync(
      installation.cliConfigFile,
      `# Written by "jobhooks-terraform-provider install": ${served.join(', ')} from the local mirror, everything else as usual.\n${providerInstallationBlock(mirrorDir, served)}\n`,
    );
  } else {
    const userConfig = cliConfigFileOf(env, home);
    if (existsSync(userConfig) && /^\s*provider_installation\s*\{/m.test(readFileSync(userConfig, 'utf8')))
      installation.customCliConfigFile = userConfig;
  }
  // A CDKTF app's lock files are in its stack folders, which cdktf itself keeps.
  if (target !== 'cdktf-app') {
    const request = { cwd, mirrorDir, address, env, terraform: options.terraform };
    installation.lock = holdsConfiguration(cwd)
      ? lockEveryPlatform(request)
      : {
          locked: false,
          reason: `There is no Terraform configuration (.tf file) here yet: once there is, lock every platform's checksum with "terraform ${lockCommand(request).join(' ')}".`,
        };
  }
  return installation;
}
