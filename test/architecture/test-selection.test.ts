// Which suites run on which database (test/support/test-selection.js): every suite that starts a service or
// opens a store runs on PostgreSQL, with one instance and with two, unless it opts out with its reason, and no
// opt-out outlives the suite it excuses.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Selection {
  SUITES: string[];
  onPostgres: string[];
  onTwoInstances: string[];
  ONLY_POSTGRES: Record<string, string>;
  NOT_ON_POSTGRES: Record<string, string>;
  ON_POSTGRES_ALL_THE_SAME: Record<string, string>;
  NOT_ON_TWO_INSTANCES: Record<string, string>;
  TIMED: Record<string, string>;
}
const selection = require('../support/test-selection') as Selection;
const ROOT = join(__dirname, '..', '..');

/** Starts a service or opens a store: found by the calls, not by the imports the selection goes by. */
const startsAService = (suite: string) =>
  /\b(startHarness|startUiHarness|openTestStore|useStore|startServiceProcess|createService)\(/.test(
    readFileSync(join(ROOT, suite), 'utf8'),
  );

const excused = (list: Record<string, string>, suite: string) =>
  Object.keys(list).some((path) => suite === path || (path.endsWith('/') && suite.startsWith(path)));

test('every suite that starts a service or opens a store runs on PostgreSQL, unless it says why not', () => {
  const missing = selection.SUITES.filter(
    (suite) =>
      startsAService(suite) &&
      !selection.onPostgres.includes(suite) &&
      !excused(selection.NOT_ON_POSTGRES, suite) &&
      !suite.startsWith('test/packages/'),
  );
  expect(missing).toEqual([]);
});

test('every suite on PostgreSQL runs on two instances too, unless it says why not', () => {
  const missing = selection.onPostgres.filter(
    (suite) =>
      !selection.onTwoInstances.includes(suite) &&
      !excused(selection.NOT_ON_TWO_INSTANCES, suite) &&
      !excused(selection.ONLY_POSTGRES, suite),
  );
  expect(missing).toEqual([]);
  // The whole pipeline is among them.
  for (const suite of ['test/delivery/pipeline.test.ts', 'test/events/ingestion.test.ts', 'test/http/webhooks.test.ts'])
    expect(selection.onTwoInstances).toContain(suite);
});

test('a suite named to run on PostgreSQL all the same does, although its folder opts out', () => {
  for (const suite of Object.keys(selection.ON_POSTGRES_ALL_THE_SAME)) {
    expect(excused(selection.NOT_ON_POSTGRES, suite)).toBe(true);
    expect(selection.onPostgres).toContain(suite);
  }
  expect(selection.onPostgres).toContain('test/ui/console-at-scale.test.ts');
  expect(selection.onPostgres).not.toContain('test/ui/sign-in.test.ts');
});

test('every timed suite is a file: the runner goes by whole paths', () => {
  for (const suite of Object.keys(selection.TIMED)) expect(suite).toMatch(/\.test\.ts$/);
});

test('every opt-out and every timed suite names a suite or folder that exists, with its reason', () => {
  for (const list of [
    selection.ONLY_POSTGRES,
    selection.NOT_ON_POSTGRES,
    selection.ON_POSTGRES_ALL_THE_SAME,
    selection.NOT_ON_TWO_INSTANCES,
    selection.TIMED,
  ]) {
    for (const [path, reason] of Object.entries(list)) {
      expect(existsSync(join(ROOT, path)) ? path : `${path} (missing)`).toBe(path);
      expect(reason.length).toBeGreaterThan(20);
    }
  }
});
