// What both commands need before they post: the connection and the job settings, checked together so every
// problem is one sentence naming its setting, and the reporter that posts through them.
import { connectionFrom, type ConnectionFlags } from '@jobhooks/client';
import type { DbtToolIo } from './io';
import { type JobFlags, type JobSettings, jobSettingsFrom } from './job-settings';
import { DEFAULT_POST_TIMEOUT_SECONDS, type Reporter, reporterFor } from './reporter';

export interface Reporting {
  job: JobSettings;
  reporter: Reporter;
}

/** A line of this tool's own on stderr, told apart from dbt's output. */
export const sayOn = (io: DbtToolIo) => (line: string) => io.stderr(`jobhooks-dbt: ${line}\n`);

/** The job and a reporter, or a CliError naming the setting that is missing or wrong. */
export function reportingFrom(
  flags: { job: JobFlags; connection: ConnectionFlags; postTimeoutSeconds?: number },
  io: DbtToolIo,
): Reporting {
  const connection = connectionFrom(flags.connection, io.env);
  const job = jobSettingsFrom(flags.job, io.env, io.newRunId);
  if (job.runIdGenerated)
    sayOn(io)(
      `no CI run found: reporting as run ${job.runId} (set JOBHOOKS_DBT_RUN_ID=${job.runId} to report it again).`,
    );
  const deadline = { seconds: flags.postTimeoutSeconds ?? DEFAULT_POST_TIMEOUT_SECONDS, timeout: io.timeout };
  return { job, reporter: reporterFor(io.poster(connection), connection, sayOn(io), deadline) };
}
