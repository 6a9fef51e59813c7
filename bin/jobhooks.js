#!/usr/bin/env node
// Entry point of the `jobhooks` command; the compiled CLI lives in dist/ (built by `npm ci` via prepare).
'use strict';
let cli;
try {
  cli = require('../dist/service/src/cli/main.js');
} catch (error) {
  if (error.code !== 'MODULE_NOT_FOUND') throw error;
  process.stderr.write('jobhooks: the build is missing; run "npm run build" first.\n');
  process.exit(1);
}
cli.runCli(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`jobhooks: ${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  },
);
