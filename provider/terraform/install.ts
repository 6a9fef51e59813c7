// `jobhooks terraform install`: lays the provider out as a Terraform filesystem mirror under the address of
// the public provider (registry.terraform.io/dbt-labs/dbtcloud) and writes a CLI configuration that takes
// that provider from the mirror, so `terraform init` works offline and configurations need no change.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PROVIDER_ADDRESS = 'registry.terraform.io/dbt-labs/dbtcloud';
/** The public provider release whose interface this one serves; satisfies the usual `~> 1.0` constraints. */
export const DEFAULT_PROVIDER_VERSION = '1.12.0';

export interface InstallOptions {
  /** Where the mirror and the CLI configuration go. */
  dir: string;
  version?: string;
  /** The node binary the launcher runs (this one by default). */
  nodePath?: string;
}

export interface Installation {
  mirrorDir: string;
  executable: string;
  cliConfigFile: string;
  version: string;
}

/** The compiled plugin entry point (this module runs from dist/ in the CLI, from the source tree in tests). */
function pluginEntryPoint(): string {
  const beside = join(__dirname, 'plugin-main.js');
  return existsSync(beside) ? beside : join(__dirname, '..', '..', 'dist', 'provider', 'terraform', 'plugin-main.js');
}

/** Terraform's name for this machine's platform, e.g. linux_amd64. */
export function terraformPlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  const os = platform === 'win32' ? 'windows' : platform;
  const cpu = ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' } as Record<string, string>)[arch] ?? arch;
  return `${os}_${cpu}`;
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

export function installTerraformProvider(options: InstallOptions): Installation {
  const dir = resolve(options.dir);
  const version = options.version ?? DEFAULT_PROVIDER_VERSION;
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`--version must look like 1.2.3, not "${version}"`);
  const mirrorDir = join(dir, 'mirror');
  const packageDir = join(mirrorDir, PROVIDER_ADDRESS, version, terraformPlatform());
  mkdirSync(packageDir, { recursive: true });

  const executable = join(packageDir, `terraform-provider-dbtcloud_v${version}`);
  const entry = pluginEntryPoint();
  if (!existsSync(entry)) throw new Error(`The provider is not built (${entry} is missing); run "npm run build" first.`);
  writeFileSync(executable, `#!/bin/sh\n# The jobhooks Terraform provider; written by "jobhooks terraform install".\nexec ${shellQuote(options.nodePath ?? process.execPath)} ${shellQuote(entry)} "$@"\n`);
  chmodSync(executable, 0o755);

  const cliConfigFile = join(dir, 'terraform.rc');
  writeFileSync(
    cliConfigFile,
    [
      '# Written by "jobhooks terraform install": dbt-labs/dbtcloud comes from the local mirror, everything else as usual.',
      'provider_installation {',
      '  filesystem_mirror {',
      `    path    = ${JSON.stringify(mirrorDir)}`,
      `    include = [${JSON.stringify(PROVIDER_ADDRESS)}]`,
      '  }',
      '  direct {',
      `    exclude = [${JSON.stringify(PROVIDER_ADDRESS)}]`,
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  return { mirrorDir, executable, cliConfigFile, version };
}
