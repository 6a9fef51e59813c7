// examples/dbt-core holds: its GitHub Actions step, its shell line and its Airflow callback, each run as written
// (a stand-in dbt in a dbt project, the service on 127.0.0.1), report the run to a webhook, and report it once.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { DeliveryPayload } from '@jobhooks/client/contract';
import { parse } from 'yaml';
import { createWebhook, type Harness, startHarness } from '../support/harness';
import { type Receiver, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';
import { waitFor } from '../support/wait';
import { DBT_VERSIONS, SCENARIOS } from './support/dbt-artifacts';
import { type DbtProject, dbtProject, JOBHOOKS_DBT } from './support/stand-in';

jest.setTimeout(60_000);

const EXAMPLE = resolve(__dirname, '..', '..', 'examples', 'dbt-core');
const run = promisify(execFile);

let h: Harness;
let receiver: Receiver;
let webhook: { id: string; hmac_secret: string };
let connection: Record<string, string>;
let project: DbtProject;

beforeAll(async () => {
  h = await startHarness({ env: { JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT: '1' } });
  const hostUrl = await h.listen();
  receiver = await startReceiver();
  webhook = await createWebhook(h, {
    client_url: `${receiver.url}/dbt`,
    event_types: ['job.run.started', 'job.run.errored', 'job.run.completed'],
    job_ids: [42],
  });
  connection = { JOBHOOKS_HOST_URL: hostUrl, JOBHOOKS_ACCOUNT_ID: '1', JOBHOOKS_TOKEN: await h.token('Job Runner') };
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});
beforeEach(() => {
  project = dbtProject();
  // The dbt project's own install of @jobhooks/dbt, which `npx jobhooks-dbt` finds without a registry.
  writeFileSync(join(project.dir, 'package.json'), '{"name": "jaffle-shop-dbt", "private": true}\n');
  mkdirSync(join(project.dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(JOBHOOKS_DBT, join(project.dir, 'node_modules', '.bin', 'jobhooks-dbt'));
});
afterEach(() => project.close());

const payloads = (runId: string) =>
  receiver.requests
    .map((request) => ({ request, payload: JSON.parse(request.body.toString()) as DeliveryPayload }))
    .filter(({ payload }) => payload.data.runId === runId);

async function delivered(runId: string, count: number) {
  await waitFor(() => payloads(runId).length >= count, `${count} deliveries of run ${runId}`);
  const got = payloads(runId);
  for (const { request } of got)
    expect(isGenuine(webhook.hmac_secret, request.body, request.headers.authorization)).toBe(true);
  return got.map(({ payload }) => payload);
}

/** Runs `command` with bash in the project, with only PATH, HOME and `env`; resolves with the exit code and output. */
async function bash(command: string, env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run('bash', ['-c', command], {
      cwd: project.dir,
      env: { HOME: process.env.HOME ?? '/', PATH: process.env.PATH ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the GitHub Actions workflow', () => {
  interface Step {
    name?: string;
    id?: string;
    run?: string;
    env?: Record<string, string>;
  }
  const workflow = parse(readFileSync(join(EXAMPLE, '.github', 'workflows', 'dbt.yml'), 'utf8')) as {
    jobs: Record<string, { steps: Step[] }>;
  };
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  const step = steps.find((s) => /jobhooks-dbt run/.test(s.run ?? ''))!;

  test('the build step runs dbt inside jobhooks-dbt run, the token from secrets, the rest from vars', () => {
    expect(step.run).toMatch(/^npx jobhooks-dbt run .*-- dbt build /);
    expect(step.env).toMatchObject({
      JOBHOOKS_HOST_URL: '${{ vars.JOBHOOKS_HOST_URL }}',
      JOBHOOKS_ACCOUNT_ID: '${{ vars.JOBHOOKS_ACCOUNT_ID }}',
      JOBHOOKS_DBT_JOB_ID: '${{ vars.JOBHOOKS_DBT_JOB_ID }}',
      JOBHOOKS_TOKEN: '${{ secrets.JOBHOOKS_TOKEN }}',
    });
    // Installed by name, so the step works as copied, with or without a package.json and lockfile of the project's.
    expect(steps.findIndex((s) => s.run === 'npm install --no-save @jobhooks/dbt@^0.1.0')).toBeLessThan(
      steps.indexOf(step),
    );
  });

  test('run as GitHub runs it, it reports the build; the step run again reports the same run', async () => {
    // The step's environment with the repository's variables and secrets filled in, and what GitHub sets.
    const env = {
      ...project.env({ version: DBT_VERSIONS[5]!, scenario: SCENARIOS.testFailure }),
      ...connection,
      JOBHOOKS_DBT_JOB_ID: '42',
      JOBHOOKS_DBT_JOB_NAME: step.env!.JOBHOOKS_DBT_JOB_NAME!,
      GITHUB_ACTIONS: 'true',
      GITHUB_RUN_ID: '7700001',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_JOB: 'build',
      GITHUB_ACTION: step.id!,
      GITHUB_WORKFLOW: 'dbt',
      GITHUB_EVENT_NAME: 'schedule',
    };
    const first = await bash(step.run!, env);
    expect(first.code).toBe(1); // the step fails as dbt failed
    const runId = 'github-7700001-1-build-dbt_build-42';
    const events = await delivered(runId, 3);
    expect(events.map((e) => e.eventType)).toEqual(['job.run.started', 'job.run.errored', 'job.run.completed']);
    expect(events[2]!.data).toMatchObject({
      jobName: 'Nightly build',
      environmentName: 'Production',
      runReason:
        'Triggered by GitHub Actions: workflow dbt (schedule), run 7700001 attempt 1, job build, step dbt_build',
      runStatusCode: 20,
    });
    const again = await bash(step.run!, env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`job.run.completed of run ${runId} was already posted`);
    expect(payloads(runId)).toHaveLength(3);
  });
});

test('the shell line passes its arguments to dbt and exits with dbt’s code', async () => {
  copyFileSync(join(EXAMPLE, 'run-dbt.sh'), join(project.dir, 'run-dbt.sh'));
  const env = {
    ...project.env({ version: DBT_VERSIONS[1]!, scenario: SCENARIOS.success }),
    ...connection,
    JOBHOOKS_DBT_JOB_ID: '42',
    JOBHOOKS_DBT_RUN_ID: 'cron-2026-11-20',
  };
  const result = await bash('./run-dbt.sh --target prod', env);
  expect(result.code).toBe(0);
  const events = await delivered('cron-2026-11-20', 2);
  expect(events.map((e) => [e.eventType, e.data.jobName, e.data.environmentName, e.data.runStatusCode])).toEqual([
    ['job.run.started', 'dbt build --target prod', 'prod', 3],
    ['job.run.completed', 'dbt build --target prod', 'prod', 10],
  ]);
});

describe('the Airflow DAG and its callback', () => {
  /** The callback as Airflow calls it, for try `tryNumber` of a task instance that started at `startDate`. */
  const callback = (tryNumber: number, startDate: Date) => `
import sys
from datetime import datetime
sys.path.insert(0, ${JSON.stringify(join(EXAMPLE, 'airflow'))})
import jobhooks_callbacks

class TaskInstance:
    dag_id = "dbt_nightly"
    task_id = "dbt_test"
    try_number = ${tryNumber}
    start_date = datetime.fromisoformat("${startDate.toISOString().replace('Z', '+00:00')}")

jobhooks_callbacks.report_dbt_run({"ti": TaskInstance(), "run_id": "scheduled__2026-11-20T05:00:00+00:00"})
`;
  /** The worker's environment: only what the callback and jobhooks-dbt need. */
  const workerEnv = () => ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/',
    ...connection,
    JOBHOOKS_DBT_JOB_ID: '42',
    DBT_PROJECT_DIR: project.dir,
    // Split as a shell would (shlex): quoted words stay whole.
    JOBHOOKS_DBT: `'${process.execPath}' '${JOBHOOKS_DBT}'`,
    // The example's folder stays as committed: no __pycache__ beside it.
    PYTHONDONTWRITEBYTECODE: '1',
  });

  test('the callback reports the task’s run from the run_results.json dbt wrote; called twice, it reports it once', async () => {
    const taskStarted = new Date(Date.now() - 1000);
    // dbt test has run in the project: its artifacts are there.
    const dbt = await bash('dbt test', project.env({ version: DBT_VERSIONS[6]!, scenario: SCENARIOS.testFailure }));
    expect(dbt.code).toBe(1);
    const once = await run('python3', ['-c', callback(1, taskStarted)], { env: workerEnv() });
    // The task instance's identifiers are longer than a run id may be: the run id is their hash.
    const runId = /job\.run\.completed of run (\S+) posted/.exec(once.stderr)?.[1];
    expect(runId).toMatch(/^airflow-[0-9a-f]{56}$/);
    const events = await delivered(runId!, 2);
    expect(events.map((e) => [e.eventType, e.data.dbtVersion, e.data.runStatusCode])).toEqual([
      ['job.run.errored', '2.0.0', 20],
      ['job.run.completed', '2.0.0', 20],
    ]);
    expect(events[1]!.data.runStatusMessage).toMatch(/^1 of 4 nodes failed \(1 test failure\)/);
    expect(events[1]!.data.runReason).toBe(
      'Triggered by Airflow: task dbt_test of DAG dbt_nightly, run scheduled__2026-11-20T05:00:00+00:00, try 1',
    );
    const twice = await run('python3', ['-c', callback(1, taskStarted)], { env: workerEnv() });
    expect(twice.stderr).toContain('was already posted');
    expect(payloads(runId!)).toHaveLength(2);
    expect(twice.stderr).toContain(`job.run.completed of run ${runId} was already posted`);
  });

  test('a run_results.json older than the task (dbt stopped before writing one) is not reported as this try', async () => {
    const dbt = await bash('dbt test', project.env({ version: DBT_VERSIONS[5]!, scenario: SCENARIOS.success }));
    expect(dbt.code).toBe(0);
    // Try 2 started after that file was written, and its dbt wrote nothing.
    const laterTry = new Date(Date.now() + 1000);
    const reported = await run('python3', ['-c', callback(2, laterTry)], { env: workerEnv() });
    expect(reported.stderr).toMatch(
      /jobhooks-dbt: \S*target\/run_results\.json was written at \S+, before this run started: this run wrote no results\.\n/,
    );
    const runId = /job\.run\.completed of run (\S+) posted/.exec(reported.stderr)?.[1];
    const events = await delivered(runId!, 2);
    expect(events.map((e) => [e.eventType, e.data.runStatusCode])).toEqual([
      ['job.run.errored', 20],
      ['job.run.completed', 20],
    ]);
  });

  test('the DAG runs dbt inside jobhooks-dbt run in one task, and reports the other with the callback', async () => {
    const dag = readFileSync(join(EXAMPLE, 'airflow', 'dbt_dag.py'), 'utf8');
    expect(dag).toMatch(/bash_command="npx jobhooks-dbt run --job-id 42 -- dbt build/);
    expect(dag).toMatch(/on_success_callback=report_dbt_run,\n\s+on_failure_callback=report_dbt_run/);
    expect(dag).toMatch(/^from jobhooks_callbacks import DBT_PROJECT_DIR, report_dbt_run$/m);
    // Valid Python (Airflow itself is not installed here to import it).
    await run('python3', [
      '-c',
      'import ast, sys; ast.parse(open(sys.argv[1]).read())',
      join(EXAMPLE, 'airflow', 'dbt_dag.py'),
    ]);
  });
});
