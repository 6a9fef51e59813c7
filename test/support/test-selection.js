// Which suites run on which database. A suite that runs a whole service or a store (it imports the test
// harness, the browser harness, the test stores or the store contract's fixtures) runs on the embedded SQLite
// file, on PostgreSQL, and on two instances of one PostgreSQL database, unless it opts out below, with its
// reason. So a new suite runs on every backend without anyone having to remember to list it (jest.config.js).
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');

/** What a suite that runs a whole service or a store imports. */
const RUNS_A_SERVICE =
  /from '(\.\.\/)+support\/(harness|browser|stores)'|from '\.\/fixtures'|from '(\.\.\/)+service\/src\/wiring'/;

/** Suites that need PostgreSQL: they run only in the PostgreSQL projects. */
const ONLY_POSTGRES = {
  'test/store/postgres/': "PostgreSQL's own statements, migrations, notifications and locks",
  'test/cluster/': 'several instances, each a process or a store of its own, on one PostgreSQL database',
};

/** Suites that run a service but not on PostgreSQL, and why. A path ending in / is a folder. */
const NOT_ON_POSTGRES = {
  'test/store/sqlite/': "SQLite's own statements, file layout, indexes and pragmas",
  'test/delivery/durability.test.ts':
    'kills a service process on a SQLite file; test/cluster/multi-instance.test.ts kills instances on PostgreSQL',
  'test/http/readiness.test.ts':
    "makes the SQLite file full, read-only or corrupt; PostgreSQL's outages are tested in test/cluster",
  'test/security/secret-key.test.ts':
    'the key file beside the SQLite database; rotating the key on PostgreSQL is tested in test/cluster',
  'test/terraform/':
    "Terraform driving the provider's requests; the API behind them runs on every backend in test/http",
  'test/provider/': "the Pulumi and CDKTF front ends' requests; the API behind them runs on every backend in test/http",
  'test/as-code/': "jobhooks-as-code's requests; the API behind them runs on every backend in test/http",
  'test/dbt/': "jobhooks-dbt's posts; ingestion behind them runs on every backend in test/events and test/delivery",
  'test/backup.test.ts':
    '`jobhooks backup` copies the SQLite file; a PostgreSQL database is backed up with its own tools (pg_dump)',
  'test/start.test.ts':
    '`jobhooks start` as a process on its SQLite default; instances starting on PostgreSQL are in test/cluster',
  'test/readme.test.ts': "the README's text and its one delivery, which test/delivery runs on every backend",
  'test/cli.test.ts':
    'the `jobhooks` commands on the SQLite file a service shares; the same commands on PostgreSQL are tested in test/cluster/db-copy.test.ts',
  'test/ui/': "the browser sees only the API's answers, which test/http and test/delivery check on every backend",
};

/** Suites in a folder that opts out above that run on PostgreSQL all the same, and why. */
const ON_POSTGRES_ALL_THE_SAME = {
  'test/ui/console-at-scale.test.ts':
    "how soon the console is usable with 1,000 webhooks and 100,000 logged attempts depends on the database's queries",
};

/** Suites that run on PostgreSQL with one instance but not with two, and why. */
const NOT_ON_TWO_INSTANCES = {
  'test/store/contract/': 'a store on its own, with no service: there is no second instance to run',
  'test/delivery/dispatcher.test.ts':
    "one dispatcher driven on a manual clock; two instances' dispatchers are tested by test/cluster",
  'test/observability/metrics.test.ts':
    "one instance's counters; the gauges every instance shares are tested by test/cluster/cluster-jobs.test.ts",
  'test/http/response-serializer.test.ts': "counts one instance's reads of its own caches",
  'test/ui/':
    "the browser loads the UI from one instance and sends every request there; what the API answers on either instance, for state either instance's dispatcher wrote, is tested by test/http and test/delivery on two instances",
};

/**
 * Suites that assert a wall-clock bound the product promises, with what it bounds: files, not folders. jest's runner
 * runs them after the others, one at a time (timed-apart-runner.js), so that no other suite on the same cores is
 * timed instead.
 */
const TIMED = {
  'test/ui/console-at-scale.test.ts': 'how soon the console is usable with 1,000 webhooks and 100,000 logged attempts',
  'test/cluster/token-revocation.test.ts': 'how soon a token revoked on one instance is refused by every instance',
  'test/delivery/noisy-neighbours.test.ts':
    'how late a healthy webhook is delivered while slow and hung endpoints hold their requests open',
};

const ROOT = join(__dirname, '..', '..');
const SKIP = new Set(['node_modules', 'dist', 'fixtures']);

function suitesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return suitesUnder(path);
    return name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

const listed = (list, suite) =>
  Object.keys(list).some((path) => suite === path || (path.endsWith('/') && suite.startsWith(path)));

const SUITES = suitesUnder(join(ROOT, 'test'));
const onPostgres = SUITES.filter(
  (suite) =>
    listed(ONLY_POSTGRES, suite) ||
    (RUNS_A_SERVICE.test(readFileSync(join(ROOT, suite), 'utf8')) &&
      (!listed(NOT_ON_POSTGRES, suite) || listed(ON_POSTGRES_ALL_THE_SAME, suite))),
);
const onTwoInstances = onPostgres.filter(
  (suite) => !listed(ONLY_POSTGRES, suite) && !listed(NOT_ON_TWO_INSTANCES, suite),
);

module.exports = {
  SUITES,
  onPostgres,
  onTwoInstances,
  ONLY_POSTGRES,
  NOT_ON_POSTGRES,
  ON_POSTGRES_ALL_THE_SAME,
  NOT_ON_TWO_INSTANCES,
  TIMED,
};
