// The job a run is reported under, from the flags and then the JOBHOOKS_DBT_* variables: the dbt Cloud job and
// environment it stands for, and the run id (given, else the CI's own run, else a new one that is printed).
import { fromEnvironment } from '@jobhooks/client';
import { detectCi, runIdOf } from './ci-run';
import { CliError } from '@jobhooks/client';
import { fitsContract, maxLengthOf } from './contract-limits';

export interface JobFlags {
  jobId?: string;
  jobName?: string;
  environmentId?: string;
  environmentName?: string;
  runId?: string;
  reason?: string;
}

/** Each setting's flag and variable. */
export const JOB_SETTINGS = {
  jobId: { flag: '--job-id', variable: 'JOBHOOKS_DBT_JOB_ID' },
  jobName: { flag: '--job-name', variable: 'JOBHOOKS_DBT_JOB_NAME' },
  environmentId: { flag: '--environment-id', variable: 'JOBHOOKS_DBT_ENVIRONMENT_ID' },
  environmentName: { flag: '--environment-name', variable: 'JOBHOOKS_DBT_ENVIRONMENT_NAME' },
  runId: { flag: '--run-id', variable: 'JOBHOOKS_DBT_RUN_ID' },
  reason: { flag: '--reason', variable: 'JOBHOOKS_DBT_RUN_REASON' },
} as const satisfies Record<keyof JobFlags, { flag: string; variable: string }>;

export interface JobSettings {
  jobId: string;
  /** null: named after the dbt command. */
  jobName: string | null;
  environmentId: string;
  /** null: named after the dbt target. */
  environmentName: string | null;
  runId: string;
  /** True when the run id was made up here: print it, so the run can be reported again under the same id. */
  runIdGenerated: boolean;
  runReason: string;
}

function setting(
  flags: JobFlags,
  env: NodeJS.ProcessEnv,
  key: keyof JobFlags,
): { value: string; source: string } | null {
  const given = flags[key];
  if (given !== undefined) return { value: given, source: JOB_SETTINGS[key].flag };
  return fromEnvironment([JOB_SETTINGS[key].variable], env);
}

/** Who started a run outside CI: the user, as dbt Cloud names who kicked off a run. */
const manualReason = (env: NodeJS.ProcessEnv) =>
  `Kicked off from the command line${env.USER || env.USERNAME ? ` by ${env.USER || env.USERNAME}` : ''}`;

/** The job settings, or a CliError naming the setting that is missing or wrong. */
export function jobSettingsFrom(flags: JobFlags, env: NodeJS.ProcessEnv, newRunId: () => string): JobSettings {
  const jobId = setting(flags, env, 'jobId');
  if (jobId === null)
    throw new CliError(
      `No job id: set ${JOB_SETTINGS.jobId.variable} or pass --job-id (the dbt Cloud job id this run stands for; webhooks filter on it).`,
    );
  if (!fitsContract('jobId', jobId.value))
    throw new CliError(`${jobId.source} must be a job id (a positive whole number), not "${jobId.value}".`);
  const runId = setting(flags, env, 'runId');
  if (runId !== null && (!fitsContract('runId', runId.value) || runId.value.trim() === ''))
    throw new CliError(`${runId.source} must be 1 to ${maxLengthOf('runId')} characters, not "${runId.value}".`);
  const environmentId = setting(flags, env, 'environmentId');
  if (environmentId !== null && !fitsContract('environmentId', environmentId.value))
    throw new CliError(
      `${environmentId.source} must be at most ${maxLengthOf('environmentId')} characters, not ${environmentId.value.length}.`,
    );
  const ci = detectCi(env);
  const reason = setting(flags, env, 'reason')?.value ?? ci?.reason ?? manualReason(env);
  return {
    jobId: jobId.value,
    jobName: setting(flags, env, 'jobName')?.value ?? null,
    environmentId: environmentId?.value ?? '',
    environmentName: setting(flags, env, 'environmentName')?.value ?? null,
    runId: runId?.value ?? (ci !== null ? runIdOf(ci, jobId.value) : newRunId()),
    runIdGenerated: runId === null && ci === null,
    runReason: reason,
  };
}
