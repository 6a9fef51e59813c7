// `jobhooks-dbt run [options] -- dbt build ...`: posts job.run.started, runs dbt with its output passed through,
// reads what it wrote, posts job.run.errored (for a failed run) and job.run.completed, and exits with dbt's own exit
// code whatever happened to the posts. A signal (CI cancelling the job, Ctrl-C) is passed on to dbt as SIGINT and
// reports the run as cancelled. With --strict, a success whose events could not all be posted exits 1.
import { constants } from 'node:os';
import { basename, join, relative } from 'node:path';
import type { ConnectionFlags } from '@jobhooks/client';
import {
  projectIdOf,
  MANIFEST_START_BYTES,
  readManifest,
  readRunResults,
  type Reading,
  type RunResults,
  stalenessOf,
  textOf,
} from './artifacts';
import { CliError } from '@jobhooks/client';
import { commandLineOf, type DbtPaths, dbtPaths, dbtTarget, projectDirOf, projectNameIn } from './dbt-command';
import type { DbtToolIo, ExitStatus } from './io';
import type { JobFlags } from './job-settings';
import { type Reporting, reportingFrom, sayOn } from './report-settings';
import { endEvents, type RunIdentity, startedEvent } from './run-events';
import { outcomeOf } from './run-outcome';

export interface RunOptions {
  job: JobFlags;
  connection: ConnectionFlags;
  strict: boolean;
  /** How long the posts after the run may take, all together (--post-timeout). */
  postTimeoutSeconds?: number;
  /** Where dbt writes its artifacts, when the dbt command does not say (or says it in a way not read here). */
  targetPath?: string;
  /** The dbt command and its arguments. */
  command: string[];
}

/** The signals that mean "cancel": what CI sends a job it stops, and Ctrl-C. */
const CANCELLING = new Set<string>(['SIGINT', 'SIGTERM']);

/** A shell's exit code for a process a signal ended: 128 + the signal's number. */
const exitCodeOf = (exit: ExitStatus): number =>
  exit.code ?? (exit.signal !== null ? 128 + (constants.signals[exit.signal] ?? 0) : 127);

export async function runCommand(options: RunOptions, io: DbtToolIo): Promise<number> {
  const [command, ...args] = options.command;
  if (command === undefined)
    throw new CliError('No dbt command: put it after --, as in: jobhooks-dbt run -- dbt build', 2);
  const say = sayOn(io);
  // A reporting problem is said, and dbt runs all the same: a broken webhook setting must not stop the data build.
  let reporting: Reporting | null = null;
  try {
    reporting = reportingFrom(options, io);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    say(`${error.message} dbt runs, and this run is not reported.`);
  }

  const projectYml = textOf(io.readFile(join(projectDirOf(args, io.env, io.cwd), 'dbt_project.yml')));
  const paths = dbtPaths(args, io.env, io.cwd, options.targetPath, projectYml);
  // Read before dbt runs, to tell the previous run's results from this run's; a problem reading it is said after.
  const previous = readRunResults(io.readFile(join(paths.targetPath, 'run_results.json')), 'run_results.json');
  const projectName = projectNameIn(projectYml) ?? '';
  const identity: RunIdentity = {
    jobId: reporting?.job.jobId ?? '',
    jobName: reporting?.job.jobName ?? commandLineOf([basename(command), ...args]),
    runId: reporting?.job.runId ?? '',
    environmentId: reporting?.job.environmentId ?? '',
    environmentName: reporting?.job.environmentName ?? dbtTarget(args, io.env) ?? '',
    projectName,
    projectId: projectName === '' ? '' : projectIdOf(projectName),
    dbtVersion: '',
    runReason: reporting?.job.runReason ?? '',
  };

  const startedAt = io.now();
  const child = io.spawn(command, args);
  let cancelledBy: string | null = null;
  const stopListening = io.onCancel((signal) => {
    // dbt writes the results of what finished only on a KeyboardInterrupt: Python's default SIGTERM ends it without
    // a word. dbt runs in a process group of its own, so a signal reaches it only from here: the first, as SIGINT.
    // A second SIGINT would cut short its writing of those results, and a CI that cancels sends more than one
    // (GitHub Actions: SIGINT, then SIGTERM 7.5 s later).
    if (cancelledBy !== null) return;
    cancelledBy = signal;
    child.kill('SIGINT');
  });
  // Posted while dbt starts, so a slow server does not hold dbt back; awaited before the run's end is posted.
  const started = reporting?.reporter.post([startedEvent(identity, startedAt)]) ?? Promise.resolve(0);
  const exit = await child.exited;
  stopListening();
  const code = exitCodeOf(exit);
  // Whatever goes wrong from here on (a file that cannot be read, a bug), dbt's exit code is what CI must see.
  try {
    const run = { options, io, command, paths, identity, reporting, started, startedAt, previous, cancelledBy };
    return await reportEnd(run, exit);
  } catch (error) {
    say(`the end of the run could not be reported (${(error as Error).message}).`);
    return options.strict && code === 0 ? 1 : code;
  }
}

interface RunSoFar {
  options: RunOptions;
  io: DbtToolIo;
  command: string;
  paths: DbtPaths;
  identity: RunIdentity;
  reporting: Reporting | null;
  /** The post of job.run.started: how many events it failed to post. */
  started: Promise<number>;
  startedAt: Date;
  previous: Reading<RunResults>;
  cancelledBy: string | null;
}

/** Reads what dbt wrote, posts the end of the run, and resolves with the exit code. */
async function reportEnd(run: RunSoFar, exit: ExitStatus): Promise<number> {
  const { options, io, command, paths, identity, reporting, startedAt } = run;
  const say = sayOn(io);
  const shown = (path: string) => relative(io.cwd, path) || path;
  const runResultsPath = join(paths.targetPath, 'run_results.json');
  const finishedAt = io.now();
  const reading = trusted(
    exit.startError !== null
      ? { ok: false, problem: `${command} could not be started (${exit.startError}).` }
      : readRunResults(io.readFile(runResultsPath), shown(runResultsPath)),
    shown(runResultsPath),
    { startedAt, previousInvocationId: run.previous.ok ? run.previous.value.invocationId : null },
  );
  if (!reading.ok) say(reading.problem);
  const outcome = outcomeOf({
    exitCode: exit.code,
    signal: exit.signal,
    cancelledBy: cancellerOf(run.cancelledBy, exit),
    results: reading.ok ? reading.value.results : null,
    artifactProblem: reading.ok ? null : reading.problem,
  });
  const code = exitCodeOf(exit);
  if (reporting === null) {
    if (!options.strict || code !== 0) return code;
    say('--strict: dbt succeeded, but the run was not reported; exiting 1.');
    return 1;
  }

  const manifestPath = join(paths.targetPath, 'manifest.json');
  const manifest = reading.ok
    ? readManifest(io.readStart(manifestPath, MANIFEST_START_BYTES), shown(manifestPath), reading.value.results)
    : null;
  const ended: RunIdentity = {
    ...identity,
    ...(manifest?.ok && manifest.value.projectName !== '' ? manifest.value : {}),
    dbtVersion: reading.ok ? reading.value.dbtVersion : '',
    environmentName: identity.environmentName || (reading.ok ? targetOf(reading.value) : ''),
  };
  const events = endEvents(ended, startedAt, reading.ok ? reading.value.generatedAt : finishedAt, outcome);
  const failed = await reporting.reporter.finish(
    async () => (await run.started) + (await reporting.reporter.post(events)),
  );
  if (failed > 0 && options.strict && code === 0) {
    say('--strict: dbt succeeded, but not every event was posted; exiting 1.');
    return 1;
  }
  return code;
}

/**
 * The signal that cancelled the run: one sent to jobhooks-dbt, unless dbt went on to finish with 0 all the same,
 * or the SIGINT or SIGTERM that ended dbt itself.
 */
function cancellerOf(received: string | null, exit: ExitStatus): string | null {
  if (received !== null && exit.code !== 0) return received;
  return exit.signal !== null && CANCELLING.has(exit.signal) ? exit.signal : null;
}

/** The run's results, unless they are the previous run's. */
function trusted(
  reading: Reading<RunResults>,
  path: string,
  run: { startedAt: Date; previousInvocationId: string | null },
): Reading<RunResults> {
  if (!reading.ok) return reading;
  const stale = stalenessOf(reading.value, path, run);
  return stale === null ? reading : { ok: false, problem: stale };
}

const targetOf = (runResults: RunResults): string =>
  typeof runResults.args.target === 'string' ? runResults.args.target : '';
