// `jobhooks-dbt emit --run-results PATH [--manifest PATH]`: posts job.run.errored (for a failed run) and
// job.run.completed for a run that already ended, from its artifacts: for orchestrator callbacks and CI steps that
// run after dbt. A missing or unreadable run_results.json is said in one sentence and reported as an errored run.
import { dirname, relative, resolve } from 'node:path';
import type { ConnectionFlags } from '@jobhooks/client';
import {
  MANIFEST_START_BYTES,
  type Reading,
  readManifest,
  readRunResults,
  type RunResults,
  stalenessOf,
} from './artifacts';
import { recordedCommandLineOf } from './dbt-command';
import type { DbtToolIo } from './io';
import type { JobFlags } from './job-settings';
import { reportingFrom, sayOn } from './report-settings';
import { endEvents, type RunIdentity } from './run-events';
import { outcomeOf } from './run-outcome';

export interface EmitOptions {
  job: JobFlags;
  connection: ConnectionFlags;
  runResults: string;
  /** The manifest; manifest.json beside run_results.json when not given. */
  manifest?: string;
  /** How long the posts may take, all together (--post-timeout). */
  postTimeoutSeconds?: number;
  /** When the run began (--not-before): a run_results.json written before is an older run's, not this one's. */
  notBefore?: Date;
}

/** The run's results, unless they were written before `notBefore`: then an older run's, left where this one wrote none. */
function recentEnough(reading: Reading<RunResults>, path: string, notBefore: Date | undefined): Reading<RunResults> {
  if (!reading.ok || notBefore === undefined) return reading;
  const stale = stalenessOf(reading.value, path, { startedAt: notBefore, previousInvocationId: null });
  return stale === null ? reading : { ok: false, problem: stale };
}

/** The job name dbt's own record of the invocation gives: its command line (--vars hidden), else `dbt <command>`. */
function commandOf(runResults: RunResults): string {
  const { invocation_command: line, which } = runResults.args;
  if (typeof line === 'string' && line !== '') return recordedCommandLineOf(line);
  return typeof which === 'string' ? `dbt ${which}` : 'dbt';
}

/** Resolves with 0 when every event was posted and the artifacts were read, 1 otherwise. */
export async function emitCommand(options: EmitOptions, io: DbtToolIo): Promise<number> {
  const { job, reporter } = reportingFrom(options, io);
  const say = sayOn(io);
  const runResultsPath = resolve(io.cwd, options.runResults);
  const shown = (path: string) => relative(io.cwd, path) || path;
  const reading = recentEnough(
    readRunResults(io.readFile(runResultsPath), shown(runResultsPath)),
    shown(runResultsPath),
    options.notBefore,
  );
  if (!reading.ok) say(reading.problem);
  // Without it, a file a dbt that stopped before it began left behind is the previous run's, reported as this one's.
  else if (options.notBefore === undefined)
    say(
      `${shown(runResultsPath)} (written ${reading.value.generatedAt.toISOString()}) is reported as this run's; pass --not-before with the time the run began, so that a file an earlier run left is refused instead.`,
    );

  const manifestPath = resolve(io.cwd, options.manifest ?? resolve(dirname(runResultsPath), 'manifest.json'));
  const manifest = reading.ok
    ? readManifest(io.readStart(manifestPath, MANIFEST_START_BYTES), shown(manifestPath), reading.value.results)
    : null;
  // A manifest asked for by name must be there; the one next to run_results.json is read when present.
  if (manifest !== null && !manifest.ok && options.manifest !== undefined) say(manifest.problem);
  const project = manifest?.ok ? manifest.value : { projectName: '', projectId: '' };

  const now = io.now();
  const identity: RunIdentity = {
    jobId: job.jobId,
    jobName: job.jobName ?? (reading.ok ? commandOf(reading.value) : 'dbt'),
    runId: job.runId,
    environmentId: job.environmentId,
    environmentName:
      job.environmentName ??
      (reading.ok && typeof reading.value.args.target === 'string' ? reading.value.args.target : ''),
    ...project,
    dbtVersion: reading.ok ? reading.value.dbtVersion : '',
    runReason: job.runReason,
  };
  const outcome = outcomeOf({
    exitCode: null,
    signal: null,
    cancelledBy: null,
    results: reading.ok ? reading.value.results : null,
    artifactProblem: reading.ok ? null : reading.problem,
  });
  const events = endEvents(
    identity,
    reading.ok ? reading.value.startedAt : now,
    reading.ok ? reading.value.generatedAt : now,
    outcome,
  );
  const failed = await reporter.finish(() => reporter.post(events));
  return failed > 0 || !reading.ok ? 1 : 0;
}
