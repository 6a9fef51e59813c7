// The package tests' npm registry: Verdaccio on 127.0.0.1 (test/support/registry-server.js), every workspace
// published to it once from the build `npm test` made. One registry serves a whole CI run: `.ci/run` starts it
// and names it in JOBHOOKS_TEST_REGISTRY; a run of the package tests alone starts its own (registry-global.ts).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REGISTRY_ENV = 'JOBHOOKS_TEST_REGISTRY';
export const CHECKOUT = resolve(__dirname, '..', '..');
const SERVER = join(__dirname, 'registry-server.js');

/** The version every workspace is published at (they move together). */
export function packagesVersion(): string {
  return (JSON.parse(readFileSync(join(CHECKOUT, 'provider', 'client', 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** The registry the tests install from: the one globalSetup started or `.ci/run` named. */
export function testRegistry(): string {
  const url = process.env[REGISTRY_ENV];
  if (!url) throw new Error(`${REGISTRY_ENV} is not set: the package tests run in the "packages" jest project.`);
  return url;
}

export interface RunningRegistry {
  url: string;
  stop(): Promise<void>;
}

/** Starts Verdaccio in a child process with a storage folder of its own; resolves once it listens. */
export async function startRegistry(): Promise<RunningRegistry> {
  const folder = mkdtempSync(join(tmpdir(), 'jobhooks-registry-'));
  const uplink = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
  const child: ChildProcess = spawn(process.execPath, [SERVER, folder, uplink], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
      if (line) resolveUrl(line[1]!);
    });
    child.on('exit', (code) => reject(new Error(`the test registry exited with code ${code} before listening`)));
  });
  return {
    url,
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Publishes every workspace, as built, unless this version is there already (a second jest run in one CI run). */
export async function publishWorkspaces(url: string): Promise<void> {
  const version = packagesVersion();
  if ((await fetch(new URL(`@jobhooks%2fclient/${version}`, url))).status === 200) return;
  // A publisher of its own: Verdaccio's htpasswd plugin makes the account and answers with its token.
  const user = `ci-${process.pid}-${Date.now()}`;
  const created = await fetch(new URL(`-/user/org.couchdb.user:${user}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: user, password: `${user}-password` }),
  });
  const { token } = (await created.json()) as { token?: string };
  if (!token) throw new Error(`the test registry made no publisher account (HTTP ${created.status})`);
  const npmrc = mkdtempSync(join(tmpdir(), 'jobhooks-publisher-'));
  writeFileSync(join(npmrc, '.npmrc'), `${url.replace(/^https?:/, '')}:_authToken=${token}\n`);
  try {
    // --ignore-scripts: `npm test` built every package just before; prepack would build them all again.
    execFileSync(
      'npm',
      ['publish', '--workspaces', '--ignore-scripts', '--registry', url, '--userconfig', join(npmrc, '.npmrc')],
      { cwd: CHECKOUT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } finally {
    rmSync(npmrc, { recursive: true, force: true });
  }
}
