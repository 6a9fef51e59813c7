// The jest projects: SQLite, the packages installed from a registry, PostgreSQL, and two instances of one
// PostgreSQL database. Which suites run on which database is decided in test/support/test-selection.js.
const { ONLY_POSTGRES, onPostgres, onTwoInstances } = require('./test/support/test-selection');

const { availableParallelism } = require('node:os');

/** Every project runs its suites through this runner: the timed ones after the rest, one at a time. */
const TS = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': 'ts-jest' },
  runner: '<rootDir>/test/support/timed-apart-runner.js',
};
const POSTGRES = {
  globalSetup: '<rootDir>/test/support/postgres-global.ts',
  globalTeardown: '<rootDir>/test/support/postgres-global-teardown.ts',
};
const match = (suites) => suites.map((suite) => `<rootDir>/${suite}`);

module.exports = {
  projects: [
    {
      displayName: 'sqlite',
      roots: ['<rootDir>/test'],
      testPathIgnorePatterns: [
        '/node_modules/',
        ...Object.keys(ONLY_POSTGRES).map((p) => `<rootDir>/${p}`),
        '<rootDir>/test/packages/',
      ],
      ...TS,
    },
    {
      displayName: 'packages',
      roots: ['<rootDir>/test'],
      testMatch: ['<rootDir>/test/packages/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/registry-global.ts',
      globalTeardown: '<rootDir>/test/support/registry-global-teardown.ts',
      ...TS,
    },
    {
      displayName: 'postgres',
      roots: ['<rootDir>/test'],
      testMatch: match(onPostgres),
      ...POSTGRES,
      setupFiles: ['<rootDir>/test/support/postgres-backend.ts'],
      ...TS,
    },
    {
      displayName: 'postgres, two instances',
      roots: ['<rootDir>/test'],
      testMatch: match(onTwoInstances),
      ...POSTGRES,
      setupFiles: ['<rootDir>/test/support/postgres-backend.ts', '<rootDir>/test/support/two-instances.ts'],
      ...TS,
    },
  ],
  testTimeout: 30000,
  // At least two suites at a time, also on a 2-core machine (jest's default there is one): most suites wait on a
  // service, PostgreSQL, Chromium or terraform for much of their time. The suites that assert a wall-clock bound
  // run after the rest, one at a time (test/support/timed-apart-runner.js).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // With a memory limit set, jest runs the suites in a worker process even where it would run them in its own
  // (one worker on a 2-core machine): a suite that crashes or changes its process (a native addon, a debugger
  // attached by a library) then fails alone instead of ending the run, and the worker is started afresh once it
  // holds more than this much between suites.
  workerIdleMemoryLimit: '2GB',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
