// The import layers of service/src and the borders between the packages (.dependency-cruiser.cjs): the
// repository keeps them, and the check really fails on an import against the order and on a cycle.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function depcruise(
  cwd: string,
  paths: string[],
  outputType: string,
): Promise<{ stdout: string; exitCode: number }> {
  const args = [...paths, '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', outputType];
  return promisify(execFile)(DEPCRUISE, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).then(
    (done) => ({ stdout: done.stdout, exitCode: 0 }),
    (failed: { stdout: string; code: number }) => ({ stdout: failed.stdout, exitCode: failed.code }),
  );
}

/**
 * The violations in `cwd` (from the JSON report), and the exit code of the run `npm run check:layers` makes
 * (its err-long output is what fails CI; the JSON output always exits 0).
 */
async function checkLayers(cwd: string, paths: string[]): Promise<{ violations: Violation[]; exitCode: number }> {
  const [json, errLong] = await Promise.all([depcruise(cwd, paths, 'json'), depcruise(cwd, paths, 'err-long')]);
  const report = JSON.parse(json.stdout) as { summary: { violations: Violation[] } };
  return { violations: report.summary.violations, exitCode: errLong.exitCode };
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'jobhooks-layers-'));
  copyFileSync(join(ROOT, 'tsconfig.base.json'), join(scratch, 'tsconfig.base.json'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

test('the repository keeps the layer order, the package borders and has no import cycle', async () => {
  const { violations, exitCode } = await checkLayers(ROOT, ['service/src', 'provider']);
  expect(violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  expect(exitCode).toBe(0);
}, 60_000);

test('a store module that imports a delivery module fails the check, naming the rule', async () => {
  writeTree(scratch, {
    'service/src/delivery/retry-policy.ts': 'export const RETRIES = 5;\n',
    'service/src/store/deliveries.ts':
      "import { RETRIES } from '../delivery/retry-policy';\nexport const n = RETRIES;\n",
  });
  const { violations, exitCode } = await checkLayers(scratch, ['service/src']);
  expect(violations.map((v) => [v.rule.name, v.from, v.to])).toEqual([
    ['layer-store', 'service/src/store/deliveries.ts', 'service/src/delivery/retry-policy.ts'],
  ]);
  expect(exitCode).not.toBe(0);
}, 60_000);

test('one storage backend that imports the other fails the check; both may import the shared store modules', async () => {
  writeTree(scratch, {
    'service/src/store/rows.ts': 'export const shared = 1;\n',
    'service/src/store/sqlite/webhooks.ts': "import { shared } from '../rows';\nexport const sql = shared;\n",
    'service/src/store/postgres/webhooks.ts':
      "import { sql } from '../sqlite/webhooks';\nimport { shared } from '../rows';\nexport const n = sql + shared;\n",
  });
  const { violations, exitCode } = await checkLayers(scratch, ['service/src']);
  expect(violations.map((v) => [v.rule.name, v.from, v.to])).toEqual([
    ['store-backends-apart', 'service/src/store/postgres/webhooks.ts', 'service/src/store/sqlite/webhooks.ts'],
  ]);
  expect(exitCode).not.toBe(0);
}, 60_000);

test('a cycle of type-only imports inside one layer fails the check', async () => {
  writeTree(scratch, {
    'service/src/core/a.ts': "import type { B } from './b';\nexport interface A { b: B }\n",
    'service/src/core/b.ts': "import type { A } from './a';\nexport interface B { a: A }\n",
  });
  const { violations, exitCode } = await checkLayers(scratch, ['service/src']);
  expect(violations.length).toBeGreaterThan(0);
  expect(new Set(violations.map((v) => v.rule.name))).toEqual(new Set(['no-circular']));
  expect(exitCode).not.toBe(0);
}, 60_000);

test('the same modules in the allowed direction pass', async () => {
  writeTree(scratch, {
    'service/src/store/deliveries.ts': 'export const RETRIES = 5;\n',
    'service/src/delivery/retry-policy.ts':
      "import { RETRIES } from '../store/deliveries';\nexport const n = RETRIES;\n",
  });
  expect(await checkLayers(scratch, ['service/src'])).toEqual({ violations: [], exitCode: 0 });
}, 60_000);

test('the browser UI imports only itself and the contract, and nothing of the service imports the UI', async () => {
  writeTree(scratch, {
    'service/src/core/clock.ts': 'export const now = () => 0;\n',
    'service/src/ui/app.ts': "import { now } from '../core/clock';\nexport const t = now();\n",
    'service/src/http/web-ui.ts': "import { t } from '../ui/app';\nexport const u = t;\n",
  });
  const { violations, exitCode } = await checkLayers(scratch, ['service/src']);
  expect(violations.map((v) => [v.rule.name, v.from, v.to]).sort()).toEqual([
    ['nothing-imports-ui', 'service/src/http/web-ui.ts', 'service/src/ui/app.ts'],
    ['ui-imports-only-ui-and-the-contract', 'service/src/ui/app.ts', 'service/src/core/clock.ts'],
  ]);
  expect(exitCode).not.toBe(0);
}, 60_000);

test('the packages keep their borders: the client imports no other package, a provider never the service', async () => {
  writeTree(scratch, {
    'service/src/core/clock.ts': 'export const now = () => 0;\n',
    'provider/client/src/client.ts':
      "import { now } from '../../../service/src/core/clock';\nexport const c = now();\n",
    'provider/pulumi/src/webhook.ts':
      "import { now } from '../../../service/src/core/clock';\nexport const p = now();\n",
  });
  const { violations, exitCode } = await checkLayers(scratch, ['service/src', 'provider']);
  const rulesOf = (from: string) =>
    violations
      .filter((v) => v.from === from)
      .map((v) => v.rule.name)
      .sort();
  expect(rulesOf('provider/client/src/client.ts')).toEqual([
    'client-imports-no-other-package',
    'provider-not-to-service',
  ]);
  expect(rulesOf('provider/pulumi/src/webhook.ts')).toEqual(['provider-not-to-service']);
  expect(exitCode).not.toBe(0);
}, 60_000);

test('jobhooks-dbt imports only itself and the client: never the service, another provider or their dependencies', async () => {
  writeTree(scratch, {
    'service/src/core/clock.ts': 'export const now = () => 0;\n',
    'provider/as-code/src/io.ts': 'export const io = 1;\n',
    'provider/dbt/src/own.ts': 'export const own = 1;\n',
    'provider/dbt/src/run.ts': [
      "import { now } from '../../../service/src/core/clock';",
      "import { io } from '../../as-code/src/io';",
      "import { asCode } from '@jobhooks/as-code';",
      "import Fastify from 'fastify';",
      "import { createWebhooksClient } from '@jobhooks/client';",
      "import { own } from './own';",
      'export const r = [now, io, asCode, Fastify, createWebhooksClient, own];',
      '',
    ].join('\n'),
  });
  const { violations, exitCode } = await checkLayers(scratch, ['service/src', 'provider']);
  const dbt = violations
    .filter((v) => v.from === 'provider/dbt/src/run.ts' && v.rule.name === 'dbt-imports-only-the-client')
    .map((v) => v.to)
    .sort();
  expect(dbt).toEqual(['@jobhooks/as-code', 'fastify', 'provider/as-code/src/io.ts', 'service/src/core/clock.ts']);
  expect(exitCode).not.toBe(0);
}, 60_000);
