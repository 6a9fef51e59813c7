#!/usr/bin/env node
// `jobhooks-terraform-provider install`: sets up the provider for Terraform (see the package README).
'use strict';
const { INSTALL_USAGE, runInstallCommand } = require('../dist/index.js');

const [command, ...args] = process.argv.slice(2);
if (command !== 'install') {
  const usage = `Usage: jobhooks-terraform-provider ${INSTALL_USAGE}\n`;
  process.stdout.write(command === undefined || command === '--help' || command === '-h' ? usage : '');
  if (command !== undefined && command !== '--help' && command !== '-h')
    process.stderr.write(`Unknown command "${command}".\n${usage}`);
  process.exitCode = command === undefined || command === '--help' || command === '-h' ? 0 : 2;
} else {
  const result = runInstallCommand(args);
  process.stdout.write(result.stdout);
  if (result.stderr) process.stderr.write(`jobhooks-terraform-provider: ${result.stderr}`);
  process.exitCode = result.code;
}
