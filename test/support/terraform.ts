// Runs the real `terraform` binary against this project's provider, installed the way users install it
// (`jobhooks terraform install`), in a temporary working directory. Never skips: no terraform, no pass.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const BIN = resolve(__dirname, '..', '..', 'service', 'bin', 'jobhooks.js');

/** The terraform on PATH, or an error that says what is missing and why these tests need it. */
export function terraformOnPath(path = process.env.PATH ?? ''): string {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  const binary = path
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'terraform'))
    .find(executable);
  if (binary === undefined) {
    throw new Error(
      'terraform is not on PATH. The Terraform provider tests run the real binary (1.11 or later); install it, nothing is skipped.',
    );
  }
  return binary;
}

export interface TerraformResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface TerraformWorkspace {
  dir: string;
  /** The environment terraform runs with: the CLI configuration from `jobhooks terraform install`, no telemetry. */
  env: NodeJS.ProcessEnv;
  /** The `jobhooks terraform install` output. */
  installOutput: string;
  /** Runs `jobhooks terraform install` again into the same folder, with more options (another --source, say). */
  install(args: string[]): Promise<TerraformResult>;
  write(file: string, content: string): void;
  /** Runs terraform asynchronously (the service under test may share this process and must keep serving). */
  run(args: string[], cwd?: string): Promise<TerraformResult>;
  /** Runs and fails the test with terraform's own output unless the exit code is the expected one. */
  must(args: string[], expectedCode?: number, cwd?: string): Promise<TerraformResult>;
  /** The state's attributes of one resource address (via `terraform show -json`). */
  attributes(address: string, cwd?: string): Promise<Record<string, unknown> | null>;
  close(): void;
}

/** Commands that take -no-color (colour codes would get in the way of matching their output). */
const COLOURED = new Set(['init', 'plan', 'apply', 'destroy', 'import', 'validate', 'refresh']);

function runProcess(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<TerraformResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** The TF_CLI_CONFIG_FILE path the provider's install command prints, or undefined when it printed none. */
export function printedCliConfigFile(installOutput: string): string | undefined {
  return /^export TF_CLI_CONFIG_FILE=(.+)$/m.exec(installOutput)?.[1];
}

export async function createTerraformWorkspace(env: Record<string, string> = {}): Promise<TerraformWorkspace> {
  const terraform = terraformOnPath();
  const dir = mkdtempSync(join(tmpdir(), 'jobhooks-tf-test-'));
  // An explicit mirror and CLI configuration (`--dir`), so that terraform finds the provider from any folder a
  // test runs it in; the program there is self-contained: no Node project around the folder.
  const installInto = (args: string[]) =>
    runProcess(
      process.execPath,
      [BIN, 'terraform', 'install', '--dir', join(dir, 'provider'), ...args],
      dir,
      process.env,
    );
  const install = await installInto([]);
  if (install.code !== 0) throw new Error(`jobhooks terraform install failed: ${install.stderr}`);
  const cliConfig = printedCliConfigFile(install.stdout);
  if (cliConfig === undefined)
    throw new Error(`jobhooks terraform install printed no TF_CLI_CONFIG_FILE line: ${install.stdout}`);
  const workspaceEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    TF_CLI_CONFIG_FILE: cliConfig,
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
    NO_COLOR: '1',
    ...env,
  };
  const workspace: TerraformWorkspace = {
    dir,
    env: workspaceEnv,
    installOutput: install.stdout,
    install: installInto,
    write: (file, content) => writeFileSync(join(dir, file), content),
    run: (args, cwd = dir) => {
      const [command = '', ...rest] = args;
      return runProcess(
        terraform,
        [command, ...(COLOURED.has(command) ? ['-no-color'] : []), ...rest],
        cwd,
        workspaceEnv,
      );
    },
    async must(args, expectedCode = 0, cwd = dir) {
      const result = await workspace.run(args, cwd);
      if (result.code !== expectedCode) {
        throw new Error(
          `terraform ${args.join(' ')} exited ${result.code}, expected ${expectedCode}\n${result.stdout}\n${result.stderr}`,
        );
      }
      return result;
    },
    async attributes(address, cwd = dir) {
      const shown = await workspace.must(['show', '-json'], 0, cwd);
      const state = JSON.parse(shown.stdout) as {
        values?: { root_module?: { resources?: Array<{ address: string; values: Record<string, unknown> }> } };
      };
      return state.values?.root_module?.resources?.find((resource) => resource.address === address)?.values ?? null;
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
  return workspace;
}

/** A provider block and `terraform { required_providers }` for the public provider's address. */
export function providerBlock(hostUrl: string, token: string, accountId = 1): string {
  return `terraform {
  required_providers {
    dbtcloud = {
      source  = "dbt-labs/dbtcloud"
      version = "~> 1.0"
    }
  }
}

provider "dbtcloud" {
  account_id = ${accountId}
  token      = ${JSON.stringify(token)}
  host_url   = ${JSON.stringify(hostUrl)}
}
`;
}

/**
 * A configuration that needs only this provider: dbt-labs/dbtcloud and one webhook pointing at a loopback URL
 * (nothing is sent to it), with its id as an output when asked.
 */
export function webhookConfiguration({
  name = 'Errored runs',
  clientUrl = 'http://127.0.0.1:9/hooks',
  output = false,
}: { name?: string; clientUrl?: string; output?: boolean } = {}): string {
  return `terraform {
  required_providers {
    dbtcloud = { source = "dbt-labs/dbtcloud", version = "~> 1.12" }
  }
}

resource "dbtcloud_webhook" "errored_runs" {
  name        = ${JSON.stringify(name)}
  client_url  = ${JSON.stringify(clientUrl)}
  event_types = ["job.run.errored"]
}
${output ? '\noutput "webhook_id" { value = dbtcloud_webhook.errored_runs.id }\n' : ''}`;
}

/** The h1: checksums the lock file of a folder holds. */
export function lockedHashes(dir: string): string[] {
  return [...readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8').matchAll(/"(h1:[^"]+)"/g)].map(
    (match) => match[1]!,
  );
}
