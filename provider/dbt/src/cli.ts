// The command line: `jobhooks-dbt run [options] -- COMMAND...` and `jobhooks-dbt emit --run-results PATH`, their
// flags, and their exit codes.
import { parseArgs } from 'node:util';
import { CliError, CONNECTION_HELP } from '@jobhooks/client';
import { emitCommand } from './emit-command';
import type { DbtToolIo } from './io';
import { JOB_SETTINGS } from './job-settings';
import { DEFAULT_POST_TIMEOUT_SECONDS } from './reporter';
import { runCommand } from './run-command';

export const USAGE = `Usage: jobhooks-dbt <command> [options]

Runs dbt Core and posts dbt Cloud's job-run events to jobhooks: job.run.started, job.run.errored and
job.run.completed, signed and delivered to the account's webhooks as dbt Cloud would send them.

Commands:
  run [options] -- COMMAND... post job.run.started, run COMMAND (dbt build ...) with its output passed
                              through, read target/run_results.json and manifest.json, post
                              job.run.errored (when the run failed) and job.run.completed, and exit
                              with COMMAND's exit code, whatever happened to the posts
      --strict                exit 1 when COMMAND succeeded but an event could not be posted
      --target-path DIR       where COMMAND writes its artifacts (default: dbt's --target-path,
                              DBT_TARGET_PATH, or target/ in the project folder)
  emit --run-results PATH     post job.run.errored (when the run failed) and job.run.completed for a
                              run that already ended (orchestrator callbacks, CI steps after dbt)
      --manifest PATH         the run's manifest.json (default: the one beside run_results.json)
      --not-before TIME       when the run began (ISO 8601): an older run_results.json is not this run's

The run (each flag, or its variable):
  --job-id ID                 ${JOB_SETTINGS.jobId.variable}, required: the job id webhooks filter on
  --job-name NAME             ${JOB_SETTINGS.jobName.variable} (default: the dbt command)
  --environment-id ID         ${JOB_SETTINGS.environmentId.variable} (default: empty)
  --environment-name NAME     ${JOB_SETTINGS.environmentName.variable} (default: the dbt target)
  --run-id ID                 ${JOB_SETTINGS.runId.variable} (default: the CI's run - GitHub Actions,
                              GitLab CI, Buildkite, CircleCI, Jenkins, Airflow - else a new id, printed)
  --reason TEXT               ${JOB_SETTINGS.reason.variable} (default: names the CI run or the user)
  --post-timeout SECONDS      how long the posts after the run may take in all (default: ${DEFAULT_POST_TIMEOUT_SECONDS})

Connection:
${CONNECTION_HELP}
`;

const SHARED_OPTIONS = {
  'host-url': { type: 'string' },
  'account-id': { type: 'string' },
  'job-id': { type: 'string' },
  'job-name': { type: 'string' },
  'environment-id': { type: 'string' },
  'environment-name': { type: 'string' },
  'run-id': { type: 'string' },
  reason: { type: 'string' },
  'post-timeout': { type: 'string' },
} as const;

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

function parse<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true });
  } catch (error) {
    // node's message, e.g. "Unknown option '--jb-id'", without its advice about positionals.
    throw new CliError(`${(error as Error).message.split('. ')[0]} (see --help).`, 2);
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** --post-timeout SECONDS: a number of seconds above 0. */
function postTimeout(value: unknown): { postTimeoutSeconds?: number } {
  const given = text(value);
  if (given === undefined) return {};
  const seconds = Number(given);
  if (given.trim() === '' || !Number.isFinite(seconds) || seconds <= 0)
    throw new CliError(`--post-timeout must be a number of seconds above 0, not "${given}".`, 2);
  return { postTimeoutSeconds: seconds };
}

/** --not-before TIME: an ISO 8601 time. */
function notBefore(value: unknown): { notBefore?: Date } {
  const given = text(value);
  if (given === undefined) return {};
  const time = new Date(given);
  if (!/^\d{4}-\d\d-\d\dT/.test(given) || Number.isNaN(time.getTime()))
    throw new CliError(`--not-before must be an ISO 8601 time (2026-11-20T05:00:00Z), not "${given}".`, 2);
  return { notBefore: time };
}

function shared(values: Record<string, unknown>) {
  const defined = <T extends object>(object: T) =>
    Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
  return {
    ...postTimeout(values['post-timeout']),
    connection: defined({ hostUrl: text(values['host-url']), accountId: text(values['account-id']) }),
    job: defined({
      jobId: text(values['job-id']),
      jobName: text(values['job-name']),
      environmentId: text(values['environment-id']),
      environmentName: text(values['environment-name']),
      runId: text(values['run-id']),
      reason: text(values.reason),
    }),
  };
}

/** Runs a command line (without the node and script arguments) and resolves with the exit code. */
export async function runCli(argv: readonly string[], io: DbtToolIo): Promise<number> {
  const [command, ...rest] = argv;
  const separator = rest.indexOf('--');
  const own = separator === -1 ? rest : rest.slice(0, separator);
  try {
    // No command is bad usage: the usage goes to stderr, with exit code 2. Asked for, it is the output.
    if (command === undefined) {
      io.stderr(USAGE);
      return 2;
    }
    if (own.includes('--help') || own.includes('-h') || command === 'help') {
      io.stdout(USAGE);
      return 0;
    }
    switch (command) {
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return 0;
      case '--version':
        io.stdout(`${(require('../package.json') as { version: string }).version}\n`);
        return 0;
      case 'run': {
        if (separator === -1)
          throw new CliError('Put the dbt command after --, as in: jobhooks-dbt run --job-id 42 -- dbt build', 2);
        const { values } = parse(own, {
          ...SHARED_OPTIONS,
          strict: { type: 'boolean' },
          'target-path': { type: 'string' },
        });
        const targetPath = text(values['target-path']);
        return await runCommand(
          {
            ...shared(values),
            strict: values.strict === true,
            ...(targetPath !== undefined ? { targetPath } : {}),
            command: rest.slice(separator + 1),
          },
          io,
        );
      }
      case 'emit': {
        const { values } = parse(own, {
          ...SHARED_OPTIONS,
          'run-results': { type: 'string' },
          manifest: { type: 'string' },
          'not-before': { type: 'string' },
        });
        const runResults = text(values['run-results']);
        if (runResults === undefined)
          throw new CliError('emit needs --run-results PATH: the run_results.json of the run to report.', 2);
        const manifest = text(values.manifest);
        return await emitCommand(
          {
            ...shared(values),
            runResults,
            ...(manifest !== undefined ? { manifest } : {}),
            ...notBefore(values['not-before']),
          },
          io,
        );
      }
      default:
        throw new CliError(`Unknown command "${command}"; the commands are run and emit (see --help).`, 2);
    }
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.stderr(`jobhooks-dbt: ${error.message}\n`);
    return error.exitCode;
  }
}
