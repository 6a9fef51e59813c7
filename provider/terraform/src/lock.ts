// Records every platform's checksum of the installed provider in the configuration's .terraform.lock.hcl, with
// Terraform's own `terraform providers lock -fs-mirror`, so that `terraform init` has nothing to warn about.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { TERRAFORM_PLATFORMS } from './mirror';

export interface LockRequest {
  /** The configuration's folder, where .terraform.lock.hcl is. */
  cwd: string;
  mirrorDir: string;
  address: string;
  env: NodeJS.ProcessEnv;
  /** The terraform command; `terraform` from PATH by default. */
  terraform?: string;
}

/** What happened: the lock file written, or one sentence saying why not and the command that does it later. */
export type LockOutcome = { locked: true; lockFile: string } | { locked: false; reason: string };

/** Whether the folder holds a Terraform configuration (.tf or .tf.json files). */
export function holdsConfiguration(dir: string): boolean {
  return readdirSync(dir).some((name) => name.endsWith('.tf') || name.endsWith('.tf.json'));
}

/** The command that locks every platform's checksum, as a user would type it in the configuration's folder. */
export function lockCommand(request: Pick<LockRequest, 'cwd' | 'mirrorDir' | 'address'>): string[] {
  const inside = relative(request.cwd, request.mirrorDir);
  const mirror = inside !== '' && !inside.startsWith('..') ? inside : request.mirrorDir;
  return [
    'providers',
    'lock',
    `-fs-mirror=${mirror}`,
    ...TERRAFORM_PLATFORMS.map((platform) => `-platform=${platform}`),
    request.address,
  ];
}

export function lockEveryPlatform(request: LockRequest): LockOutcome {
  const args = lockCommand(request);
  const later = `terraform ${args.join(' ')}`;
  const run = spawnSync(request.terraform ?? 'terraform', [...args, '-no-color'], {
    cwd: request.cwd,
    env: { ...request.env, CHECKPOINT_DISABLE: request.env.CHECKPOINT_DISABLE ?? '1' },
    encoding: 'utf8',
  });
  if (run.error !== undefined) {
    return { locked: false, reason: `terraform is not on PATH, so no checksum was locked: run "${later}" later.` };
  }
  if (run.status === 0) return { locked: true, lockFile: join(request.cwd, '.terraform.lock.hcl') };
  if (/is not required by the\s+current configuration/.test(run.stderr + run.stdout)) {
    return {
      locked: false,
      reason: `The configuration here does not require ${request.address} yet: once it does, run "${later}".`,
    };
  }
  if (/Module not installed/.test(run.stderr + run.stdout)) {
    return {
      locked: false,
      reason: `The configuration's modules are not installed yet, so no checksum was locked: run "terraform init", then "${later}".`,
    };
  }
  const said = (run.stderr || run.stdout).replace(/\s+/g, ' ').trim();
  return { locked: false, reason: `terraform providers lock failed (${said}): run "${later}" once that is fixed.` };
}
