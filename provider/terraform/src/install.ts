// `jobhooks-terraform-provider install`: lays the provider out as a Terraform filesystem mirror under the
// address of the public provider (registry.terraform.io/dbt-labs/dbtcloud) and writes a CLI configuration that
// takes that provider from the mirror, so `terraform init` works offline and configurations need no change.
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DBTCLOUD_PROVIDER_ADDRESS, DBTCLOUD_PROVIDER_VERSION } from '@jobhooks/client';

export const PROVIDER_ADDRESS = DBTCLOUD_PROVIDER_ADDRESS;
/** The public provider release whose interface this one serves; satisfies the usual `~> 1.0` constraints. */
export const DEFAULT_PROVIDER_VERSION = DBTCLOUD_PROVIDER_VERSION;
/** The module the launcher loads: the package's plugin entry point, found by package name. */
export const PLUGIN_MODULE = '@jobhooks/terraform-provider/plugin';

export interface InstallOptions {
  /** Where the mirror and the CLI configuration go. */
  dir: string;
  version?: string;
  /**
   * The provider source address to serve, `dbt-labs/dbtcloud` by default. Another one (say `jobhooks/dbtcloud`)
   * lets a configuration use the public provider for dbt Cloud and this one, by another local name, for webhooks.
   */
  source?: string;
}

export interface Installation {
  /** The full address the mirror serves, e.g. registry.terraform.io/dbt-labs/dbtcloud. */
  address: string;
  mirrorDir: string;
  executable: string;
  cliConfigFile: string;
  version: string;
}

/** Terraform's name for this machine's platform, e.g. linux_amd64. */
export function terraformPlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  const os = platform === 'win32' ? 'windows' : platform;
  const cpu = ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' } as Record<string, string>)[arch] ?? arch;
  return `${os}_${cpu}`;
}

/**
 * The executable Terraform runs. It names no path: it loads the provider package from the Node project around
 * Terraform's working directory, or else around the mirror's real location. So the file is the same on every
 * machine, and the checksum `terraform init` writes into .terraform.lock.hcl holds for a whole team and its CI.
 */
export const LAUNCHER = `#!/usr/bin/env node
// The jobhooks Terraform provider, serving dbt-labs/dbtcloud. Written by "jobhooks-terraform-provider install".
'use strict';
const { dirname } = require('node:path');
const { realpathSync } = require('node:fs');
const near = [process.cwd(), dirname(realpathSync(__filename))];
let entry;
try {
  entry = require.resolve(${JSON.stringify(PLUGIN_MODULE)}, { paths: near });
} catch {
  process.stderr.write('The jobhooks Terraform provider needs the npm package @jobhooks/terraform-provider in the Node project of this Terraform configuration (looked around ' + near.join(' and ') + '). Install it there: npm install --save-dev @jobhooks/terraform-provider\\n');
  process.exit(1);
}
require(entry).main();
`;

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

/** The provider addresses a mirror folder holds (its HOST/NAMESPACE/TYPE folders), sorted. */
function addressesIn(mirrorDir: string): string[] {
  const below = (dir: string) =>
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  return below(mirrorDir)
    .flatMap((host) =>
      below(join(mirrorDir, host)).flatMap((namespace) =>
        below(join(mirrorDir, host, namespace)).map((type) => `${host}/${namespace}/${type}`),
      ),
    )
    .sort();
}

export function installTerraformProvider(options: InstallOptions): Installation {
  const dir = resolve(options.dir);
  const version = options.version ?? DEFAULT_PROVIDER_VERSION;
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`--version must look like 1.2.3, not "${version}"`);
  const { address, type } =
    options.source === undefined ? { address: PROVIDER_ADDRESS, type: 'dbtcloud' } : providerAddress(options.source);
  const mirrorDir = join(dir, 'mirror');
  const packageDir = join(mirrorDir, address, version, terraformPlatform());
  mkdirSync(packageDir, { recursive: true });

  const executable = join(packageDir, `terraform-provider-${type}_v${version}`);
  writeFileSync(executable, LAUNCHER);
  chmodSync(executable, 0o755);

  // The configuration takes from the mirror every address it holds: installing under a second --source into
  // the same folder serves both.
  const served = addressesIn(mirrorDir);
  const cliConfigFile = join(dir, 'terraform.rc');
  writeFileSync(
    cliConfigFile,
    [
      `# Written by "jobhooks-terraform-provider install": ${served.join(', ')} from the local mirror, everything else as usual.`,
      'provider_installation {',
      '  filesystem_mirror {',
      `    path    = ${JSON.stringify(mirrorDir)}`,
      `    include = [${served.map((each) => JSON.stringify(each)).join(', ')}]`,
      '  }',
      '  direct {',
      `    exclude = [${served.map((each) => JSON.stringify(each)).join(', ')}]`,
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  return { address, mirrorDir, executable, cliConfigFile, version };
}
