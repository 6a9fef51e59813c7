// The job-run events of one dbt run, in dbt Cloud's shape (the contract's RunDetails): started when dbt starts;
// errored, then completed, when it ends. Every event of a run carries the same identity and start time.
import type { IngestInput } from '@jobhooks/client';
import type { RunDetails } from '@jobhooks/client/contract';
import { type BoundedField, cutToLength, maxLengthOf } from './contract-limits';
import { NO_MESSAGE, RUN_STATUS, type RunOutcome } from './run-outcome';

/** What names the run and where it belongs: the same in each of its events. */
export interface RunIdentity {
  jobId: string;
  jobName: string;
  runId: string;
  environmentId: string;
  environmentName: string;
  projectName: string;
  projectId: string;
  dbtVersion: string;
  runReason: string;
}

const iso = (date: Date) => date.toISOString();

/** The free-text fields cut to the contract's limits, so a long command line or reason is cut, not refused. */
function bounded(identity: RunIdentity): RunIdentity {
  const cut = (field: BoundedField & keyof RunIdentity) => cutToLength(identity[field], maxLengthOf(field));
  return {
    ...identity,
    jobName: cut('jobName'),
    environmentName: cut('environmentName'),
    projectName: cut('projectName'),
    runReason: cut('runReason'),
    dbtVersion: cut('dbtVersion'),
  };
}

function details(
  identity: RunIdentity,
  startedAt: Date,
): Omit<RunDetails, 'runStatus' | 'runStatusCode' | 'runStatusMessage'> {
  const { jobId, jobName, runId, environmentId, environmentName, dbtVersion, projectName, projectId, runReason } =
    bounded(identity);
  return {
    jobId,
    jobName,
    runId,
    environmentId,
    environmentName,
    dbtVersion,
    projectName,
    projectId,
    runReason,
    runStartedAt: iso(startedAt),
  };
}

export function startedEvent(identity: RunIdentity, startedAt: Date): IngestInput {
  return {
    event_type: 'job.run.started',
    run: { ...details(identity, startedAt), ...RUN_STATUS.running, runStatusMessage: NO_MESSAGE },
  };
}

/** The events of a run's end, in the order dbt Cloud sends them: errored (for a failed run), then completed. */
export function endEvents(
  identity: RunIdentity,
  startedAt: Date,
  finishedAt: Date,
  outcome: RunOutcome,
): IngestInput[] {
  const run = {
    ...details(identity, startedAt),
    ...RUN_STATUS[outcome.status],
    runStatusMessage: outcome.message,
  };
  const errored: IngestInput[] =
    outcome.status === 'error'
      ? [{ event_type: 'job.run.errored', run: { ...run, runErroredAt: iso(finishedAt) } }]
      : [];
  return [...errored, { event_type: 'job.run.completed', run: { ...run, runFinishedAt: iso(finishedAt) } }];
}
