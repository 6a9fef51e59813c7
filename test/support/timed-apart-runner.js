// jest's own runner, with the suites that assert a wall-clock bound (TIMED in test-selection.js) run after all the
// others and one at a time: two suites share the cores for the rest of the run (most of them wait on a service,
// PostgreSQL, Chromium or terraform), but a bound must time its own suite, not its neighbour's.
'use strict';
const { relative } = require('node:path');
const TestRunner = require('jest-runner').default;
const { TIMED } = require('./test-selection');

const isTimed = (test) => Object.hasOwn(TIMED, relative(test.context.config.rootDir, test.path));

class TimedApartRunner extends TestRunner {
  async runTests(tests, watcher, options) {
    const timed = tests.filter(isTimed);
    const rest = tests.filter((test) => !isTimed(test));
    if (rest.length > 0) await super.runTests(rest, watcher, options);
    if (timed.length === 0 || watcher.isInterrupted()) return;
    // jest-runner sizes its pool of worker processes by the global config's maxWorkers, read when a run starts.
    const shared = this._globalConfig;
    this._globalConfig = { ...shared, maxWorkers: 1 };
    try {
      await super.runTests(timed, watcher, options);
    } finally {
      this._globalConfig = shared;
    }
  }
}

module.exports = TimedApartRunner;
