// `npm start` (scripts/start.js) builds only when a source changed since its last build or a built file is missing,
// shown on a copy of the script in a small workspace of its own whose build counts its runs (a real build takes a
// minute; the script's logic is the same).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const START_SCRIPT = resolve(__dirname, '..', 'scripts', 'start.js');

let root: string;
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const builds = () => readFileSync(join(root, 'builds.log'), 'utf8').split('\n').filter(Boolean).length;
const start = () =>
  run(process.execPath, [join(root, 'scripts', 'start.js'), '--flag'], { cwd: root, timeout: 30_000 });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jobhooks-npm-start-'));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(START_SCRIPT, join(root, 'scripts', 'start.js'));
  // The build writes what a real one does (each package's main, the web UI) and counts itself.
  const build = [
    "const fs = require('node:fs');",
    "fs.appendFileSync('builds.log', 'built\\n');",
    "for (const dir of ['lib/dist', 'service/dist/ui']) fs.mkdirSync(dir, { recursive: true });",
    "fs.writeFileSync('lib/dist/index.js', ''); fs.writeFileSync('service/dist/main.js', '');",
    "fs.writeFileSync('service/dist/ui/index.html', ''); fs.writeFileSync('service/dist/ui/redoc.standalone.js', '');",
  ].join('\n');
  write('build.js', build);
  write('builds.log', '');
  write(
    'package.json',
    JSON.stringify({ name: 'w', private: true, workspaces: ['lib', 'service'], scripts: { build: 'node build.js' } }),
  );
  write('package-lock.json', '{}');
  write('tsconfig.base.json', '{}');
  write('lib/package.json', JSON.stringify({ name: 'lib', main: './dist/index.js' }));
  write('lib/src/index.ts', 'export {};\n');
  write('service/package.json', JSON.stringify({ name: 'service', main: './dist/main.js' }));
  // Stands in for `jobhooks start`: says what it was started with.
  write('service/bin/jobhooks.js', "process.stdout.write(`jobhooks ${process.argv.slice(2).join(' ')}\\n`);\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

test('the first start builds, says so on stderr, then starts the service with the arguments given', async () => {
  const first = await start();
  expect(builds()).toBe(1);
  expect(first.stderr).toBe('Building jobhooks (first start after npm ci); this takes a minute the first time...\n');
  expect(first.stdout).toBe('jobhooks start --flag\n');
});

test('a start with nothing changed builds nothing and prints only what the service prints', async () => {
  await start();
  const second = await start();
  expect(builds()).toBe(1);
  expect(second.stderr).toBe('');
  expect(second.stdout).toBe('jobhooks start --flag\n');
});

test('a source saved after the last build, in a package or at the root, makes the next start build', async () => {
  await start();
  const stamp = join(root, 'node_modules', '.cache', 'jobhooks', 'built');
  // The last build as if an hour ago; then a file is saved now.
  const anHourAgo = () => {
    const then = new Date(Date.now() - 3_600_000);
    utimesSync(stamp, then, then);
  };
  anHourAgo();
  write('lib/src/index.ts', 'export const changed = true;\n');
  expect((await start()).stderr).toMatch(/^Building jobhooks \(sources changed since the last build\)/);
  expect(builds()).toBe(2);
  anHourAgo();
  write('package-lock.json', '{ "changed": true }');
  await start();
  expect(builds()).toBe(3);
  await start();
  expect(builds()).toBe(3);
});

test('a built file that is missing makes the next start build', async () => {
  await start();
  rmSync(join(root, 'service', 'dist', 'ui'), { recursive: true });
  expect((await start()).stderr).toMatch(/^Building jobhooks \(a built file is missing\)/);
  expect(builds()).toBe(2);
});

test('a failed build starts nothing and says so', async () => {
  write('build.js', 'process.exit(3);\n');
  const failed = await start().then(
    () => {
      throw new Error('the start succeeded');
    },
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  expect(failed.code).toBe(3);
  expect(failed.stdout).toBe('');
  expect(failed.stderr).toMatch(/The build failed \(see above\); nothing was started\.\n$/);
});
