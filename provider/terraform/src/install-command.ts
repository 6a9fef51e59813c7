// The `install` command line, shared by `jobhooks-terraform-provider install` and `jobhooks terraform install`.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PROVIDER_VERSION, installTerraformProvider } from './install';

export const INSTALL_USAGE = `install [--dir D] [--version V] [--source S]
    Install the Terraform provider (as dbt-labs/dbtcloud, version ${DEFAULT_PROVIDER_VERSION} by default) into a local mirror in D
    (default ./.jobhooks/terraform) and print the TF_CLI_CONFIG_FILE setting that makes "terraform init" use it
    offline. --source serves it under another address (say jobhooks/dbtcloud), so that the public provider
    can manage dbt Cloud in the same configuration.`;

/** What the command prints, or the one-sentence reason it refused; exit code 0, or 2 for a usage error. */
export interface CommandResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

export function runInstallCommand(args: string[]): CommandResult {
  try {
    const options = { dir: { type: 'string' }, version: { type: 'string' }, source: { type: 'string' } } as const;
    const { values } = parseArgs({ args, options, strict: true });
    const installation = installTerraformProvider({
      dir: values.dir ?? join('.jobhooks', 'terraform'),
      version: values.version,
      source: values.source,
    });
    const stdout = [
      `Installed the jobhooks Terraform provider as ${installation.address} ${installation.version} in ${installation.mirrorDir}.`,
      'Point Terraform at it (then "terraform init" works offline):',
      `export TF_CLI_CONFIG_FILE=${installation.cliConfigFile}`,
      '',
    ].join('\n');
    return { code: 0, stdout, stderr: '' };
  } catch (error) {
    return { code: 2, stdout: '', stderr: `${(error as Error).message}\n` };
  }
}
