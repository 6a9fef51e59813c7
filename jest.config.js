// The jest projects: SQLite, the packages installed from a registry, PostgreSQL, and two instances of one
// PostgreSQL database. Which suites run on which database is decided in test/support/test-selection.js.
const { ONLY_POSTGRES, onPostgres, onTwoInstances } = require('./test/support/test-selection');

const TS = { testEnvironment: 'node', transform: { '^.+\\.ts$': 'ts-jest' } };
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
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
