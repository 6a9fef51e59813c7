#!/usr/bin/env node
// Entry point of the `jobhooks` command; the compiled CLI lives in dist/ (in the published package, or after
// `npm run build` in a checkout).
'use strict';
let cli;
try {
  cli = require('../dist/cli/main.js');
} catch (error) {
  if (error.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js')) throw error;
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
