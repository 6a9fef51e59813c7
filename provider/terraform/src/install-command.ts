// The `install` command line, shared by `jobhooks-terraform-provider install` and `jobhooks terraform install`.
import { parseArgs } from 'node:util';
import {
  DEFAULT_PROVIDER_VERSION,
  type Installation,
  installTerraformProvider,
  providerInstallationBlock,
} from './install';

export const INSTALL_USAGE = `install [--user | --dir D] [--version V] [--source S]
    Install the Terraform provider (as dbt-labs/dbtcloud, version ${DEFAULT_PROVIDER_VERSION} by default, for linux and
    darwin on amd64 and arm64) where Terraform finds it with no CLI configuration: ./terraform.d/plugins for the
    configuration in this folder, and every platform's checksum locked in its .terraform.lock.hcl; in a CDKTF or
    cdktn app (a folder with cdktf.json), ~/.terraform.d/plugins, which serves its stacks. --user installs into
    ~/.terraform.d/plugins from any folder. --dir D writes a mirror and a CLI configuration into D instead and
    prints the TF_CLI_CONFIG_FILE setting that makes "terraform init" use them. --source serves the provider under
    another address (say jobhooks/dbtcloud), so that the public provider can manage dbt Cloud in the same
    configuration.`;

/** What the command prints, or the one-sentence reason it refused; exit code 0, or 2 for a usage error. */
export interface CommandResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

const WHERE: Record<Installation['target'], string> = {
  configuration: 'where Terraform finds it for the configuration in this folder, with no CLI configuration',
  'cdktf-app': "where Terraform finds it for this app's stacks (cdktf.out/stacks/...), with no CLI configuration",
  user: 'where Terraform finds it for every configuration of this user, with no CLI configuration',
  'explicit-mirror': 'a local mirror',
};

/** The lines that tell the user what was done and what is left to do. */
export function describeInstallation(installation: Installation): string[] {
  const lines = [
    `Installed the jobhooks Terraform provider as ${installation.address} ${installation.version} (${installation.platforms.join(', ')}) in ${installation.mirrorDir}, ${WHERE[installation.target]}.`,
  ];
  if (installation.lock?.locked) lines.push(`Locked the checksum of every platform in ${installation.lock.lockFile}.`);
  else if (installation.lock) lines.push(installation.lock.reason);
  if (installation.customCliConfigFile !== undefined) {
    lines.push(
      `${installation.customCliConfigFile} has a provider_installation block of its own, so Terraform looks only where it says: merge this into it (the filesystem_mirror, and the address in the exclude of its other methods):`,
      providerInstallationBlock(installation.mirrorDir, [installation.address]),
    );
  }
  if (installation.cliConfigFile !== undefined) {
    lines.push(
      'Point Terraform at it (then "terraform init" works offline):',
      `export TF_CLI_CONFIG_FILE=${installation.cliConfigFile}`,
    );
  } else if (installation.target === 'cdktf-app') {
    lines.push('Next: cdktf deploy (or cdktn deploy); no TF_CLI_CONFIG_FILE is needed.');
  } else {
    lines.push('Next: terraform init; no TF_CLI_CONFIG_FILE is needed.');
  }
  return lines;
}

export function runInstallCommand(args: string[]): CommandResult {
  try {
    const options = {
      dir: { type: 'string' },
      user: { type: 'boolean' },
      version: { type: 'string' },
      source: { type: 'string' },
    } as const;
    const { values } = parseArgs({ args, options, strict: true });
    const installation = installTerraformProvider(values);
    return { code: 0, stdout: `${describeInstallation(installation).join('\n')}\n`, stderr: '' };
  } catch (error) {
    return { code: 2, stdout: '', stderr: `${(error as Error).message}\n` };
  }
}
