// The suites that assert a wall-clock bound run after all the others and one at a time, while the rest run two at
// once (test/support/timed-apart-runner.js): jest runs a small project of stand-in suites, named as the timed suites
// are, through the runner, and each suite notes when it ran.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const { TIMED } = require('../support/test-selection') as { TIMED: Record<string, string> };
const UNTIMED = ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/d.test.ts'];

interface Ran {
  suite: string;
  start: number;
  end: number;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-runner-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runStandIns(): Ran[] {
  const log = join(dir, 'ran.jsonl');
  for (const suite of [...UNTIMED, ...Object.keys(TIMED)]) {
    mkdirSync(dirname(join(dir, suite)), { recursive: true });
    // Plain JavaScript in a .ts file: jest runs it untransformed. The others last long enough to overlap even when
    // the second worker starts late on a loaded machine.
    writeFileSync(
      join(dir, suite),
      `const { appendFileSync } = require('node:fs');
test('notes when it ran', async () => {
  const start = Date.now();
  await new Promise((resolve) => setTimeout(resolve, ${Object.hasOwn(TIMED, suite) ? 300 : 2_000}));
  appendFileSync(${JSON.stringify(log)}, JSON.stringify({ suite: ${JSON.stringify(suite)}, start, end: Date.now() }) + '\\n');
});
`,
    );
  }
  const config = {
    rootDir: dir,
    testMatch: ['<rootDir>/test/**/*.test.ts'],
    testEnvironment: 'node',
    transform: {},
    runner: join(ROOT, 'test', 'support', 'timed-apart-runner.js'),
    maxWorkers: 2,
  };
  const ran = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', JSON.stringify(config), '--ci'],
    { cwd: dir, encoding: 'utf8', timeout: 120_000 },
  );
  expect(ran.stderr).toMatch(/Tests:\s+\d+ passed/);
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Ran);
}

const overlap = (a: Ran, b: Ran) => a.start < b.end && b.start < a.end;

test('the timed suites run after every other suite and one at a time; the others two at once', () => {
  const ran = runStandIns();
  expect(ran.map((r) => r.suite).sort()).toEqual([...UNTIMED, ...Object.keys(TIMED)].sort());
  const timed = ran.filter((r) => Object.hasOwn(TIMED, r.suite));
  const untimed = ran.filter((r) => !Object.hasOwn(TIMED, r.suite));
  const lastUntimedEnd = Math.max(...untimed.map((r) => r.end));
  for (const r of timed)
    expect({ suite: r.suite, afterTheRest: r.start >= lastUntimedEnd }).toEqual({ suite: r.suite, afterTheRest: true });
  const timedPairs = timed.flatMap((a, i) => timed.slice(i + 1).map((b) => [a, b] as const));
  expect(timedPairs.filter(([a, b]) => overlap(a, b)).map(([a, b]) => [a.suite, b.suite])).toEqual([]);
  const untimedPairs = untimed.flatMap((a, i) => untimed.slice(i + 1).map((b) => [a, b] as const));
  expect(untimedPairs.some(([a, b]) => overlap(a, b))).toBe(true);
}, 150_000);
