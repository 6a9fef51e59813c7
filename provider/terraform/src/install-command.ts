// The `install` command line, shared by `jobhooks-terraform-provider install` and `jobhooks terraform install`.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  DEFAULT_PROVIDER_VERSION,
  type Installation,
  installTerraformProvider,
  PROVIDER_ADDRESS,
  providerInstallationBlock,
} from './install';

export const INSTALL_USAGE = `install [--user | --dir D] [--version V] [--source S]
    Install the Terraform provider (as dbt-labs/dbtcloud, version ${DEFAULT_PROVIDER_VERSION} by default, for linux and
    darwin on amd64 and arm64) where Terraform finds it with no CLI configuration: ./terraform.d/plugins for the
    configuration in this folder, every platform's checksum locked in its .terraform.lock.hcl; in a CDKTF or
    cdktn app (a folder with cdktf.json), each synthesized stack's terraform.d/plugins, each stack locked.
    --user installs into ~/.terraform.d/plugins instead, which serves the address to every configuration of
    this user in place of the public provider. --dir D writes a mirror and a CLI configuration into D instead
    and prints the TF_CLI_CONFIG_FILE setting that makes "terraform init" use them. --source serves the
    provider under another address (say jobhooks/dbtcloud), so that the public provider can manage dbt Cloud
    in the same configuration.`;

/** What the command prints, or the one-sentence reason it refused; exit code 0, or 2 for a usage error. */
export interface CommandResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

const WHERE: Record<Installation['target'], string> = {
  configuration: 'where Terraform finds it for the configuration in this folder, with no CLI configuration',
  'cdktf-app': "where Terraform finds it for this app's stacks (it runs in their folders), with no CLI configuration",
  user: 'where Terraform finds it for every configuration of this user, with no CLI configuration',
  'explicit-mirror': 'a local mirror',
};

/** What `--user` does beyond this folder, and how to undo it. */
function takeOver(installation: Installation): string[] {
  const folder = join(installation.mirrorDirs[0]!, installation.address);
  const lines = [
    `This provider now serves ${installation.address} to every Terraform configuration and CDKTF stack of this user, in place of the public provider: Terraform installs that address from nowhere else, so a configuration that asks for another version fails with "no available releases match". To undo it: rm -r ${folder}`,
  ];
  if (installation.address === PROVIDER_ADDRESS) {
    lines.push(
      "To leave dbt-labs/dbtcloud to the public provider, install without --user (into the configuration's folder, or each stack's of a CDKTF app), or with --source jobhooks/dbtcloud for configurations that name that source.",
    );
  }
  return lines;
}

/** The lines that tell the user what was done and what is left to do. */
export function describeInstallation(installation: Installation): string[] {
  const lines = [
    `Installed the jobhooks Terraform provider as ${installation.address} ${installation.version} (${installation.platforms.join(', ')}) in ${installation.mirrorDirs.join(', ')}, ${WHERE[installation.target]}.`,
  ];
  if (installation.target === 'user') lines.push(...takeOver(installation));
  for (const { lock } of installation.locked)
    lines.push(lock.locked ? `Locked the checksum of every platform in ${lock.lockFile}.` : lock.reason);
  if (installation.notLocked !== undefined) lines.push(installation.notLocked);
  if (installation.refreshedEarlierInstall !== undefined) {
    const dir = installation.refreshedEarlierInstall;
    lines.push(
      `Refreshed the earlier install in ${dir}, whose launcher needed a part of @jobhooks/terraform-provider that is gone (Terraform failed its handshake): it works again while TF_CLI_CONFIG_FILE points at ${join(dir, 'terraform.rc')}, but it is needed no more: unset TF_CLI_CONFIG_FILE and remove ${dir}.`,
    );
  }
  if (installation.customCliConfigFile !== undefined) {
    lines.push(
      `${installation.customCliConfigFile} has a provider_installation block of its own, so Terraform looks only where it says: merge this into it (the filesystem_mirror, and the address in the exclude of its other methods):`,
      providerInstallationBlock(installation.mirrorDirs, [installation.address]),
    );
  }
  if (installation.cliConfigFile !== undefined) {
    lines.push(
      'Point Terraform at it (then "terraform init" works offline):',
      `export TF_CLI_CONFIG_FILE=${installation.cliConfigFile}`,
    );
  } else if (installation.target === 'cdktf-app') {
    lines.push(
      'Next: npx cdktf deploy (or npx cdktn deploy); no TF_CLI_CONFIG_FILE is needed. A synth keeps the stack folders; in a new clone, or for a new stack, run the synth, then this command, again.',
    );
  } else if (installation.target === 'configuration') {
    lines.push(
      'Next: terraform init; no TF_CLI_CONFIG_FILE is needed. Run terraform in this folder, not with -chdir from another one: Terraform looks for terraform.d/plugins in the folder it starts in (install --user or --dir serve any folder).',
    );
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
