#!/usr/bin/env node
// A stand-in for dbt Core, which cannot be installed here: it writes the artifacts a test planned (a real
// run_results.json replayed, or one in the shape of a version's real files, see dbt-artifacts.ts) into the target
// folder dbt would use, with this run's times and invocation id, prints a few of dbt's lines, and exits 0, 1 or 2, or waits to be cancelled (SIGINT) or killed.
'use strict';
const { randomUUID } = require('node:crypto');
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { resolve } = require('node:path');

const plan = JSON.parse(readFileSync(process.env.STAND_IN_DBT_PLAN, 'utf8'));
const args = process.argv.slice(2);
const flag = (name) => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
};
const projectDir = resolve(flag('--project-dir') ?? process.env.DBT_PROJECT_DIR ?? '.');
const targetPath = resolve(projectDir, flag('--target-path') ?? process.env.DBT_TARGET_PATH ?? 'target');

const startedAt = new Date();
const invocationId = randomUUID();
/** dbt's timestamps: microseconds and a Z. */
const dbtTime = (date) => date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/**
 * A real run_results.json replayed as this run's: its end, invocation id and (where it has one) start rewritten to
 * this run's, everything else as dbt wrote it.
 */
function replayed(text) {
  const artifact = JSON.parse(text);
  artifact.metadata.generated_at = dbtTime(new Date());
  artifact.metadata.invocation_id = invocationId;
  if ('invocation_started_at' in artifact.metadata) artifact.metadata.invocation_started_at = dbtTime(startedAt);
  return JSON.stringify(artifact);
}

/** Writes a planned artifact with this run's times; `truncated` cuts it off, as a killed write would. */
function write(name, template) {
  if (template === null || template === undefined) return;
  if (plan.replay && name === 'run_results.json') {
    mkdirSync(targetPath, { recursive: true });
    writeFileSync(resolve(targetPath, name), replayed(template));
    return;
  }
  const text = template
    .replaceAll('__STARTED_AT__', dbtTime(startedAt))
    .replaceAll('__GENERATED_AT__', dbtTime(new Date()))
    .replaceAll('__INVOCATION_ID__', invocationId)
    .replaceAll('"__ELAPSED__"', String((Date.now() - startedAt.getTime()) / 1000));
  mkdirSync(targetPath, { recursive: true });
  writeFileSync(resolve(targetPath, name), plan.truncated ? text.slice(0, Math.floor(text.length / 2)) : text);
}

process.stdout.write(`Running with dbt=${plan.dbtVersion} (stand-in, pid ${process.pid})\n`);
for (const line of plan.lines ?? []) process.stdout.write(`${line}\n`);

if (plan.waitsForSignal) {
  // dbt on a KeyboardInterrupt (SIGINT): it cancels the queries under way, writes the results of the nodes that
  // finished, and exits 2. A second SIGINT while it does so stops it at once, with nothing written (exit 130).
  // SIGTERM is not handled, as Python does not: the default action ends the process without a word.
  let interrupted = false;
  process.on('SIGINT', () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    setTimeout(() => {
      write('manifest.json', plan.manifest);
      write('run_results.json', plan.runResults);
      process.exit(2);
    }, 300);
  });
  setInterval(() => {}, 60_000);
  process.stdout.write('waiting to be cancelled\n');
} else if (plan.runResultsAsFolder) {
  // A run_results.json that cannot be read: a folder where the file should be.
  mkdirSync(resolve(targetPath, 'run_results.json'), { recursive: true });
  process.exitCode = plan.exitCode;
} else {
  write('manifest.json', plan.manifest);
  write('run_results.json', plan.runResults);
  process.exitCode = plan.exitCode;
  // dbt's last line, once its artifacts are written.
  process.stdout.write(`Done. (stand-in, exit ${plan.exitCode})\n`);
}
