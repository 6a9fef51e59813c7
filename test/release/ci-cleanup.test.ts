// .ci/run's cleanup on exit, run as bash runs it: on a failure as on success, it stops the registry and waits for
// it before removing its folder (a registry still shutting down would write there again), and removes the
// Node 22 it unpacked.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const SCRIPT = readFileSync(resolve(__dirname, '..', '..', '.ci', 'run'), 'utf8');

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'jobhooks-ci-cleanup-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('.ci/run, failing after it started the registry and unpacked Node 22, stops the registry, waits for it, and leaves neither folder', () => {
  const cleanup = /^cleanup\(\) \{\n[\s\S]*?^\}\n/m.exec(SCRIPT)?.[0];
  expect(cleanup).toBeDefined();
  expect(SCRIPT).toMatch(/^trap cleanup EXIT$/m);
  const registryDir = join(root, 'registry');
  const node22Dir = join(root, 'node22');
  mkdirSync(registryDir);
  mkdirSync(node22Dir);
  // A stand-in registry that, stopped, takes a moment to write its last file into its folder, as Verdaccio does.
  const standIn = `trap 'sleep 0.3; mkdir -p "$REGISTRY_DIR"; echo stopped > "$REGISTRY_DIR/last-write"; exit 0' TERM; while :; do sleep 0.05; done`;
  const script = [
    'set -euo pipefail',
    `REGISTRY_DIR=${JSON.stringify(registryDir)}`,
    `NODE22_DIR=${JSON.stringify(node22Dir)}`,
    cleanup!,
    'trap cleanup EXIT',
    `REGISTRY_DIR="$REGISTRY_DIR" bash --noprofile --norc -c ${JSON.stringify(standIn)} &`,
    'REGISTRY_PID=$!',
    'sleep 0.2',
    'false # a step of CI fails',
  ].join('\n');
  const run = spawnSync('bash', ['--noprofile', '--norc', '-c', script], { encoding: 'utf8', timeout: 10_000 });
  expect(run.status).toBe(1);
  expect(existsSync(registryDir)).toBe(false);
  expect(existsSync(node22Dir)).toBe(false);
});
