// How long the Terraform provider takes to start (`npm run bench -- --only=terraform-start`): Terraform starts it
// afresh for each step of a command, three times for a plan. Measured from the spawn of the executable the install
// lays out to its handshake line, as Terraform waits for it: with its compiled code cached (every start after the
// first), and uncached (a new cache folder each time). The ceiling is Node.js itself: a program that prints the
// line at once, started the same way.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServerCertificate } from '../provider/terraform/src/certificate';
import { executableFor, layOutMirror } from '../provider/terraform/src/mirror';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../provider/terraform/src/plugin-main';
import { median, ratio } from './load';

export interface TerraformStartFigures {
  terraform_start_ms: number;
  terraform_start_uncached_ms: number;
  node_start_ms: number;
  terraform_start_ratio: number;
  terraform_start_uncached_ratio: number;
}

/** Milliseconds from the spawn to the first line on stdout; the process is then killed. */
function timeToHandshake(executable: string, env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(executable, [], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${executable} exited (${code}) before its handshake`)));
    child.stdout.once('data', () => {
      const elapsed = performance.now() - started;
      child.removeAllListeners('exit');
      child.once('exit', () => resolve(elapsed));
      child.kill('SIGKILL');
    });
  });
}

/** To a tenth of a millisecond. */
const medianMs = (values: number[]) => Number(median(values).toFixed(1));

export async function terraformStart(starts: number): Promise<TerraformStartFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'jobhooks-bench-terraform-'));
  try {
    const executable = layOutMirror(join(dir, 'mirror'), {
      address: 'registry.terraform.io/dbt-labs/dbtcloud',
      type: 'dbtcloud',
      version: '1.12.0',
    }).linux_amd64;
    const ceiling = join(dir, 'ceiling');
    writeFileSync(ceiling, executableFor('process.stdout.write("1|6|unix|/tmp/x|grpc\\n");'));
    chmodSync(ceiling, 0o755);
    const terraformSide = await createServerCertificate();
    const env = (cacheHome: string): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      HOME: dir,
      // The provider's socket folder: a killed start leaves it, here rather than in the machine's temporary folder.
      TMPDIR: dir,
      XDG_CACHE_HOME: cacheHome,
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: '6',
      PLUGIN_CLIENT_CERT: terraformSide.certificatePem,
    });
    // The cache as the first start leaves it: one that exits on its own (here: not started by Terraform) saves it.
    const cacheHome = join(dir, 'cache');
    await new Promise((resolve) =>
      spawn(executable, [], { env: { ...env(cacheHome), [MAGIC_COOKIE_KEY]: '' }, stdio: 'ignore' }).once(
        'exit',
        resolve,
      ),
    );
    const cached: number[] = [];
    const uncached: number[] = [];
    const node: number[] = [];
    // Interleaved, so that a change in the machine's load falls on all three alike.
    for (let i = 0; i < starts; i += 1) {
      cached.push(await timeToHandshake(executable, env(cacheHome)));
      uncached.push(await timeToHandshake(executable, env(join(dir, `empty-${i}`))));
      node.push(await timeToHandshake(ceiling, env(cacheHome)));
    }
    const figures = {
      terraform_start_ms: medianMs(cached),
      terraform_start_uncached_ms: medianMs(uncached),
      node_start_ms: medianMs(node),
    };
    return {
      ...figures,
      terraform_start_ratio: ratio(figures.node_start_ms, figures.terraform_start_ms),
      terraform_start_uncached_ratio: ratio(figures.node_start_ms, figures.terraform_start_uncached_ms),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function terraformStartLines(figures: TerraformStartFigures): string[] {
  return [
    `  Terraform provider start, cached     ${figures.terraform_start_ms} ms to its handshake, node alone ${figures.node_start_ms} ms   terraform_start_ratio ${figures.terraform_start_ratio}`,
    `  Terraform provider start, uncached   ${figures.terraform_start_uncached_ms} ms   terraform_start_uncached_ratio ${figures.terraform_start_uncached_ratio}`,
  ];
}
