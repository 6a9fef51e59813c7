// End to end: `jobhooks-dbt run -- dbt build` as CI runs it, a stand-in dbt writing each version's real artifacts,
// against the service on 127.0.0.1: the webhooks get dbt Cloud's signed job-run events, in order, once per run.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeliveryPayload } from '@jobhooks/client/contract';
import { createWebhook, type Harness, startHarness } from '../support/harness';
import { type ReceivedRequest, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine, isGenuineStandard } from '../support/signature';
import { waitFor } from '../support/wait';
import { DBT_VERSIONS, MODEL_ERROR, PROJECT, PROJECT_ID, SCENARIOS, TEST_FAILURE } from './support/dbt-artifacts';
import { type DbtProject, dbtProject, type Plan, runTool } from './support/stand-in';

jest.setTimeout(60_000);

let h: Harness;
let hostUrl: string;
let token: string;
let receiver: Receiver;
/** Subscribed to the three event types of job 42, and of job 7. */
let job42: { id: string; hmac_secret: string };
let job7: { id: string; hmac_secret: string };
let project: DbtProject;

const REAL = join(__dirname, 'fixtures', 'real');

beforeAll(async () => {
  // One delivery at a time per webhook: each webhook gets a run's events in the order they were posted.
  h = await startHarness({ env: { JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT: '1' } });
  hostUrl = await h.listen();
  token = await h.token('Job Runner');
  receiver = await startReceiver();
  const types = ['job.run.started', 'job.run.errored', 'job.run.completed'];
  job42 = await createWebhook(h, { client_url: `${receiver.url}/job-42`, event_types: types, job_ids: [42] });
  job7 = await createWebhook(h, { client_url: `${receiver.url}/job-7`, event_types: types, job_ids: [7] });
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});
beforeEach(() => {
  project = dbtProject();
});
afterEach(() => project.close());

let ciRuns = 1000;
/** A CI job's environment: the connection, the job, and a GitHub Actions run of its own. */
function ciEnv(plan: Plan, extra: Record<string, string> = {}) {
  ciRuns += 1;
  return {
    ...project.env(plan),
    JOBHOOKS_HOST_URL: hostUrl,
    JOBHOOKS_ACCOUNT_ID: '1',
    JOBHOOKS_TOKEN: token,
    JOBHOOKS_DBT_JOB_ID: '42',
    GITHUB_ACTIONS: 'true',
    GITHUB_RUN_ID: String(ciRuns),
    GITHUB_RUN_ATTEMPT: '1',
    ...extra,
  };
}

const payloadOf = (request: ReceivedRequest) => JSON.parse(request.body.toString()) as DeliveryPayload;
const deliveredTo = (path: string, runId: string) =>
  receiver.requests.filter((r) => r.url === path && payloadOf(r).data.runId === runId);

async function eventsOf(path: string, runId: string, count: number) {
  await waitFor(() => deliveredTo(path, runId).length >= count, `${count} deliveries of run ${runId} to ${path}`);
  return deliveredTo(path, runId);
}

describe.each(DBT_VERSIONS.map((version) => [version.label, version] as const))('dbt %s', (_label, version) => {
  test('a failing build: signed started, errored and completed, in that order, with the failures in runStatusMessage', async () => {
    const env = ciEnv({ version, scenario: SCENARIOS.modelError });
    const run = await runTool(['run', '--', 'dbt', 'build', '--target', 'prod'], project.dir, env).done;
    expect(run.code).toBe(1); // dbt's own exit code
    expect(run.stdout).toContain(`Running with dbt=${version.dbtVersion}`); // dbt's output, passed through

    const runId = `github-${env.GITHUB_RUN_ID}-1-42`;
    const requests = await eventsOf('/job-42', runId, 3);
    for (const request of requests) {
      expect(isGenuine(job42.hmac_secret, request.body, request.headers.authorization)).toBe(true);
      expect(isGenuineStandard(job42.hmac_secret, request)).toBe(true);
    }
    const payloads = requests.map(payloadOf);
    expect(payloads.map((p) => p.eventType)).toEqual(['job.run.started', 'job.run.errored', 'job.run.completed']);
    expect(payloads.map((p) => p.timestamp)).toEqual(payloads.map((p) => p.timestamp).sort());
    const [started, errored, completed] = payloads as [DeliveryPayload, DeliveryPayload, DeliveryPayload];
    expect(started.data).toMatchObject({ runStatus: 'Running', runStatusCode: 3, runStatusMessage: 'None' });
    const ended = {
      accountId: 1,
      webhookId: job42.id,
      data: {
        jobId: '42',
        jobName: 'dbt build --target prod',
        runId,
        environmentId: '',
        environmentName: 'prod',
        dbtVersion: version.dbtVersion,
        projectName: PROJECT,
        projectId: PROJECT_ID,
        runStatus: 'Errored',
        runStatusCode: 20,
        runStatusMessage: `1 of 5 nodes failed (1 error), 2 skipped.\nmodel.${PROJECT}.orders (error): ${MODEL_ERROR}`,
        runReason: `Triggered by GitHub Actions: workflow a workflow, run ${env.GITHUB_RUN_ID} attempt 1`,
        runStartedAt: started.data.runStartedAt,
      },
    };
    expect(errored).toMatchObject(ended);
    expect(completed).toMatchObject(ended);
    expect(errored.data.runErroredAt).toBe(completed.data.runFinishedAt);
    // The end is dbt's: generated_at of the run_results.json written, to the millisecond.
    const written = JSON.parse(readFileSync(join(project.dir, 'target', 'run_results.json'), 'utf8')) as {
      metadata: { generated_at: string };
    };
    expect(completed.data.runFinishedAt).toBe(new Date(written.metadata.generated_at).toISOString());
    // The project is named before dbt has run, from dbt_project.yml, as the manifest names it after.
    expect(started.data).toMatchObject({ projectName: PROJECT, projectId: PROJECT_ID, runId, jobId: '42' });
    expect(run.stderr).toContain(`job.run.completed of run ${runId} posted`);
  });
});

/**
 * The real run_results.json files (fixtures/README.md), one or more of each schema version, replayed by the stand-in
 * as the run just started: dbt's exit code for it, and the end it must be reported as.
 */
const REPLAYS: ReadonlyArray<readonly [file: string, exitCode: 0 | 1, statusCode: number, message: string | RegExp]> = [
  ['dbt-core-1.6.7-run-results-v4.json', 0, 10, 'None'],
  [
    'jaffle-shop-1.0.0-run-results-v4.json',
    1,
    20,
    /^1 of 29 nodes failed \(1 error\)\.\nmodel\.jaffle_shop\.test_insert_overwrite \(error\): Database Error in model test_insert_overwrite/,
  ],
  ['dbt-core-1.8.0a1-run-results-v5.json', 0, 10, 'None'],
  ['jaffle-shop-1.7.0-run-results-v5.json', 0, 10, 'None'],
  ['dbt-core-1.8.0a1-run-results-v6.json', 0, 10, 'None'],
  ['openlineage-1.8.9-run-results-v6.json', 0, 10, 'None'],
  ['dbt-core-1.9.0a1-run-results-v6.json', 0, 10, 'None'],
  ['jaffle-shop-1.9.0-run-results-v6.json', 0, 10, 'None'],
  ['jaffle-shop-1.11.7-run-results-v6.json', 0, 10, 'None'],
  ['dbt-fusion-2.0.0-run-results-v6.json', 0, 10, 'None'],
  ['dbt-fusion-2.0.4-run-results-v6.json', 0, 10, 'None'],
];

describe.each(REPLAYS)('a real run_results.json replayed: %s', (file, exitCode, statusCode, message) => {
  test('reported with its version and outcome; it ends when its generated_at says', async () => {
    const real = JSON.parse(readFileSync(join(REAL, file), 'utf8')) as { metadata: { dbt_version: string } };
    const scenario = exitCode === 0 ? SCENARIOS.success : SCENARIOS.modelError;
    const env = ciEnv({ version: DBT_VERSIONS[0]!, scenario, replay: join(REAL, file) });
    const run = await runTool(['run', '--', 'dbt', 'build'], project.dir, env).done;
    expect(run.code).toBe(exitCode);
    const written = JSON.parse(readFileSync(join(project.dir, 'target', 'run_results.json'), 'utf8')) as {
      metadata: { generated_at: string; invocation_id: string };
    };
    const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, statusCode === 10 ? 2 : 3)).map(
      payloadOf,
    );
    const completed = payloads.at(-1)!;
    expect(completed.eventType).toBe('job.run.completed');
    expect(completed.data).toMatchObject({
      dbtVersion: real.metadata.dbt_version,
      runStatusCode: statusCode,
      // dbt's end of the run, to the millisecond: generated_at has microseconds.
      runFinishedAt: new Date(written.metadata.generated_at).toISOString(),
    });
    expect(completed.data.runStatusMessage).toMatch(typeof message === 'string' ? new RegExp(`^${message}$`) : message);
  });
});

test('a job-filtered webhook gets only the events of its own job', async () => {
  // Two CI jobs at once, each with a checkout of its own (one target/ folder per dbt run).
  const other = dbtProject();
  const plan7 = { version: DBT_VERSIONS[5]!, scenario: SCENARIOS.success };
  const env42 = ciEnv({ version: DBT_VERSIONS[5]!, scenario: SCENARIOS.testFailure });
  const env7 = { ...ciEnv(plan7, { JOBHOOKS_DBT_JOB_ID: '7' }), ...other.env(plan7) };
  const [run42, run7] = await Promise.all([
    runTool(['run', '--', 'dbt', 'build'], project.dir, env42).done,
    runTool(['run', '--job-name', 'Hourly', '--', 'dbt', 'build'], other.dir, env7).done,
  ]).finally(() => other.close());
  expect([run42.code, run7.code]).toEqual([1, 0]);
  const id42 = `github-${env42.GITHUB_RUN_ID}-1-42`;
  const id7 = `github-${env7.GITHUB_RUN_ID}-1-7`;
  const to7 = (await eventsOf('/job-7', id7, 2)).map(payloadOf);
  expect(to7.map((p) => [p.eventType, p.data.jobId, p.data.jobName, p.data.runStatusCode])).toEqual([
    ['job.run.started', '7', 'Hourly', 3],
    ['job.run.completed', '7', 'Hourly', 10],
  ]);
  const to42 = (await eventsOf('/job-42', id42, 3)).map(payloadOf);
  expect(to42.at(-1)!.data.runStatusMessage).toContain(TEST_FAILURE);
  // Deliveries are queued when an event is taken in: each event went to its job's webhook only.
  for (const [run, events] of [
    [run42, 3], // started, errored, completed
    [run7, 2], // started, completed
  ] as const) {
    const posted = run.stderr.split('\n').filter((line) => / posted \(wev_/.test(line));
    expect(posted).toHaveLength(events);
    for (const line of posted) expect(line).toMatch(/\(wev_\w+, 1 delivery\)\.$/);
  }
  expect(deliveredTo('/job-7', id42)).toEqual([]);
  expect(deliveredTo('/job-42', id7)).toEqual([]);
  for (const request of deliveredTo('/job-7', id7))
    expect(isGenuine(job7.hmac_secret, request.body, request.headers.authorization)).toBe(true);
});

test('the same run reported again (a retried CI step, or emit after run) posts the same events, not new ones', async () => {
  const env = ciEnv({ version: DBT_VERSIONS[3]!, scenario: SCENARIOS.testFailure });
  const runId = `github-${env.GITHUB_RUN_ID}-1-42`;
  expect((await runTool(['run', '--', 'dbt', 'build'], project.dir, env).done).code).toBe(1);
  const first = (await eventsOf('/job-42', runId, 3)).map(payloadOf);

  const again = await runTool(['run', '--', 'dbt', 'build'], project.dir, env).done;
  expect(again.code).toBe(1);
  expect(again.stderr).toContain(`job.run.started of run ${runId} was already posted (${first[0]!.eventId})`);
  expect(again.stderr).toContain(`job.run.completed of run ${runId} was already posted (${first[2]!.eventId})`);
  const emitted = await runTool(['emit', '--run-results', 'target/run_results.json'], project.dir, env).done;
  expect(emitted.code).toBe(0);
  expect(emitted.stderr).toContain(`job.run.errored of run ${runId} was already posted (${first[1]!.eventId})`);
  // Nothing new was queued: each repeat answered duplicate (the service queues deliveries as it takes an event in).
  expect(`${again.stderr}${emitted.stderr}`).not.toMatch(/ posted \(wev_\w+, \d+ deliver/);
  expect(deliveredTo('/job-42', runId)).toHaveLength(3);
});

test('a run cancelled midway (CI sends SIGTERM) is passed on to dbt as SIGINT and completes as cancelled, code 30', async () => {
  const env = ciEnv({ version: DBT_VERSIONS[6]!, scenario: SCENARIOS.cancelled });
  const run = runTool(['run', '--', 'dbt', 'build'], project.dir, env);
  await run.printed('waiting to be cancelled');
  run.child.kill('SIGTERM');
  const { code } = await run.done;
  expect(code).toBe(2); // dbt's exit code after writing what finished, which it does on SIGINT only
  const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 2)).map(payloadOf);
  expect(payloads.map((p) => [p.eventType, p.data.runStatusCode, p.data.runStatus])).toEqual([
    ['job.run.started', 3, 'Running'],
    ['job.run.completed', 30, 'Cancelled'],
  ]);
  expect(payloads[1]!.data.runStatusMessage).toBe('Cancelled by SIGTERM after 2 nodes had finished.');
});

test('Ctrl-C on a terminal (SIGINT to the whole foreground group) reaches dbt once: it writes what finished', async () => {
  const env = ciEnv({ version: DBT_VERSIONS[5]!, scenario: SCENARIOS.cancelled });
  const run = runTool(['run', '--', 'dbt', 'build'], project.dir, env, { foreground: true });
  await run.printed('waiting to be cancelled');
  process.kill(-run.child.pid!, 'SIGINT');
  const { code } = await run.done;
  expect(code).toBe(2); // a second SIGINT would have stopped dbt at once, with 130 and nothing written
  const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 2)).map(payloadOf);
  expect(payloads[1]!.data).toMatchObject({
    runStatusCode: 30,
    runStatusMessage: 'Cancelled by SIGINT after 2 nodes had finished.',
  });
});

test('a closed terminal (SIGHUP) is passed on to dbt, in a session of its own, as SIGINT: cancelled, results kept', async () => {
  const env = ciEnv({ version: DBT_VERSIONS[5]!, scenario: SCENARIOS.cancelled });
  const run = runTool(['run', '--', 'dbt', 'build'], project.dir, env);
  await run.printed('waiting to be cancelled');
  run.child.kill('SIGHUP');
  const { code } = await run.done;
  expect(code).toBe(2);
  const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 2)).map(payloadOf);
  expect(payloads[1]!.data).toMatchObject({
    runStatusCode: 30,
    runStatusMessage: 'Cancelled by SIGHUP after 2 nodes had finished.',
  });
});

test("a reader of jobhooks-dbt's output gone (a closed terminal, a pipe) costs no event and not dbt's exit code", async () => {
  const env = ciEnv({ version: DBT_VERSIONS[5]!, scenario: SCENARIOS.modelError });
  const run = runTool(['run', '--', 'dbt', 'build'], project.dir, env);
  // Writes to stderr fail from now on (EPIPE), from the first one: the started event's line.
  run.child.stderr!.destroy();
  const { code } = await run.done;
  expect(code).toBe(1);
  const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 3)).map(payloadOf);
  expect(payloads.map((p) => p.eventType)).toEqual(['job.run.started', 'job.run.errored', 'job.run.completed']);
});

test('dbt itself stopped by SIGTERM writes nothing, as Python does: reported as cancelled, with no results', async () => {
  const env = ciEnv({ version: DBT_VERSIONS[2]!, scenario: SCENARIOS.cancelled });
  const run = runTool(['run', '--', 'dbt', 'build'], project.dir, env);
  await run.printed('waiting to be cancelled');
  process.kill(Number(/pid (\d+)/.exec(run.output())![1]), 'SIGTERM');
  const { code, stderr } = await run.done;
  expect(code).toBe(143);
  expect(stderr).toContain(
    'jobhooks-dbt: dbt wrote no target/run_results.json, so the results of the run are unknown.',
  );
  const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 2)).map(payloadOf);
  expect(payloads[1]!.data).toMatchObject({ runStatusCode: 30, runStatusMessage: 'Cancelled by SIGTERM.' });
});

test('dbt killed (out of memory, say): exit 137, reported as errored, with no results', async () => {
  const env = ciEnv({ version: DBT_VERSIONS[0]!, scenario: SCENARIOS.cancelled });
  const run = runTool(['run', '--', 'dbt', 'build'], project.dir, env);
  await run.printed('waiting to be cancelled');
  process.kill(Number(/pid (\d+)/.exec(run.output())![1]), 'SIGKILL');
  const { code, stderr } = await run.done;
  expect(code).toBe(137);
  expect(stderr).toContain(
    'jobhooks-dbt: dbt wrote no target/run_results.json, so the results of the run are unknown.',
  );
  const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 3)).map(payloadOf);
  expect(payloads.map((p) => [p.eventType, p.data.runStatusCode])).toEqual([
    ['job.run.started', 3],
    ['job.run.errored', 20],
    ['job.run.completed', 20],
  ]);
  expect(payloads[2]!.data.runStatusMessage).toBe(
    'dbt was killed by SIGKILL before it finished.\ndbt wrote no target/run_results.json, so the results of the run are unknown.',
  );
  expect(payloads[2]!.data.dbtVersion).toBe('');
});

test("a run that stops before it starts leaves the previous run's results: reported as errored, not as that run", async () => {
  const version = DBT_VERSIONS[4]!;
  expect(
    (await runTool(['run', '--', 'dbt', 'build'], project.dir, ciEnv({ version, scenario: SCENARIOS.success })).done)
      .code,
  ).toBe(0);
  const env = ciEnv({ version, scenario: SCENARIOS.success, artifacts: 'none' });
  const run = await runTool(['run', '--', 'dbt', 'build'], project.dir, env).done;
  expect(run.code).toBe(2);
  expect(run.stdout).toContain('Parsing Error');
  const completed = payloadOf((await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 3))[2]!);
  expect(completed.data).toMatchObject({ runStatusCode: 20, runStatus: 'Errored' });
  expect(completed.data.runStatusMessage).toMatch(
    /^dbt exited with code 2; target\/run_results\.json is the previous run's \(invocation [0-9a-f-]{36}\): this run wrote no results\.$/,
  );
});

test('a run_results.json cut off mid-write is one sentence, and the run is reported as errored', async () => {
  const env = ciEnv({ version: DBT_VERSIONS[2]!, scenario: SCENARIOS.success, artifacts: 'truncated' });
  const run = await runTool(['run', '--', 'dbt', 'build'], project.dir, env).done;
  expect(run.code).toBe(0);
  expect(run.stderr).toContain(
    'jobhooks-dbt: target/run_results.json is not valid JSON (a run cut off while dbt wrote it?).\n',
  );
  const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 3)).map(payloadOf);
  expect(payloads[2]!.data.runStatusMessage).toBe(
    'dbt exited with code 0; target/run_results.json is not valid JSON (a run cut off while dbt wrote it?).',
  );
});

describe('an artifact that cannot be read is one sentence; dbt runs, and its exit code is what the step ends with', () => {
  test('--target-path names a file, not a folder (ENOTDIR)', async () => {
    writeFileSync(join(project.dir, 'notadir'), 'a file\n');
    const env = ciEnv({ version: DBT_VERSIONS[4]!, scenario: SCENARIOS.success });
    const run = await runTool(['run', '--target-path', 'notadir', '--', 'dbt', 'build'], project.dir, env).done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Running with dbt=1.9.4');
    const problem = 'cannot read notadir/run_results.json (ENOTDIR), so the results of the run are unknown.';
    expect(run.stderr).toContain(`jobhooks-dbt: ${problem}\n`);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 3)).map(payloadOf);
    expect(payloads[2]!.data).toMatchObject({
      runStatusCode: 20,
      runStatusMessage: `dbt exited with code 0; ${problem}`,
    });
  });

  test('dbt exits 1 with a folder where run_results.json should be (EISDIR): the step still ends with 1', async () => {
    const env = ciEnv({ version: DBT_VERSIONS[3]!, scenario: SCENARIOS.modelError, artifacts: 'folder' });
    const run = await runTool(['run', '--', 'dbt', 'build'], project.dir, env).done;
    expect(run.code).toBe(1);
    const problem = 'cannot read target/run_results.json (EISDIR), so the results of the run are unknown.';
    expect(run.stderr).toContain(`jobhooks-dbt: ${problem}\n`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 3)).map(payloadOf);
    expect(payloads[2]!.data.runStatusMessage).toBe(`dbt exited with code 1; ${problem}`);
  });
});

test('emit reports a run that already ended from its artifacts: a real jaffle_shop build with a model error', async () => {
  const target = join(project.dir, 'artifacts');
  mkdirSync(target);
  copyFileSync(
    join(__dirname, 'fixtures', 'real', 'jaffle-shop-1.0.0-run-results-v4.json'),
    join(target, 'run_results.json'),
  );
  const env = ciEnv({ version: DBT_VERSIONS[0]!, scenario: SCENARIOS.success });
  const emitted = await runTool(
    ['emit', '--run-results', 'artifacts/run_results.json', '--environment-name', 'Production'],
    project.dir,
    env,
  ).done;
  expect(emitted.code).toBe(0);
  const payloads = (await eventsOf('/job-42', `github-${env.GITHUB_RUN_ID}-1-42`, 2)).map(payloadOf);
  expect(payloads.map((p) => p.eventType)).toEqual(['job.run.errored', 'job.run.completed']);
  expect(payloads[1]!.data).toMatchObject({
    dbtVersion: '1.0.0',
    jobName: 'dbt build',
    environmentName: 'Production',
    runStartedAt: '2021-12-07T10:49:18Z',
    runFinishedAt: '2021-12-07T10:49:34.224Z',
    runStatusCode: 20,
  });
  expect(payloads[1]!.data.runStatusMessage).toMatch(
    /^1 of 29 nodes failed \(1 error\)\.\nmodel\.jaffle_shop\.test_insert_overwrite \(error\): Database Error in model test_insert_overwrite/,
  );
  expect(readFileSync(join(target, 'run_results.json'), 'utf8')).toContain('"dbt_version": "1.0.0"');

  const missing = await runTool(
    ['emit', '--run-results', 'nowhere/run_results.json'],
    project.dir,
    ciEnv({ version: DBT_VERSIONS[0]!, scenario: SCENARIOS.success }),
  ).done;
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(
    'jobhooks-dbt: dbt wrote no nowhere/run_results.json, so the results of the run are unknown.\n',
  );
});

test('without a job id the build still runs, unreported, with its own exit code; the problem is one sentence', async () => {
  const env = ciEnv({ version: DBT_VERSIONS[1]!, scenario: SCENARIOS.modelError }, { JOBHOOKS_DBT_JOB_ID: '' });
  const run = await runTool(['run', '--', 'dbt', 'build'], project.dir, env).done;
  expect(run.code).toBe(1);
  expect(run.stdout).toContain('Running with dbt=1.6.7');
  expect(run.stderr).toBe(
    'jobhooks-dbt: No job id: set JOBHOOKS_DBT_JOB_ID or pass --job-id (the dbt Cloud job id this run stands for; webhooks filter on it). dbt runs, and this run is not reported.\n',
  );
});
