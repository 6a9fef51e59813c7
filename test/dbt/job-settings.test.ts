// The run a report is about: the CI's own identifiers (the same on every repeat of a step, so a retried report posts
// the same events), the job and environment from flags or JOBHOOKS_DBT_*, and the paths dbt writes to.
import { detectCi, runIdOf } from '../../provider/dbt/src/ci-run';
import { dbtPaths, dbtTarget, projectNameIn } from '../../provider/dbt/src/dbt-command';
import { jobSettingsFrom } from '../../provider/dbt/src/job-settings';

const newRunId = () => 'generated-id';

describe('the CI run, from each system’s variables', () => {
  test.each([
    [
      'GitHub Actions',
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_RUN_ID: '9876543210',
        GITHUB_RUN_ATTEMPT: '2',
        GITHUB_JOB: 'build',
        GITHUB_ACTION: 'dbt_build',
        GITHUB_WORKFLOW: 'dbt',
        GITHUB_EVENT_NAME: 'schedule',
        GITHUB_ACTOR: 'octocat',
      },
      'github-9876543210-2-build-dbt_build-42',
      'Triggered by GitHub Actions: workflow dbt (schedule), run 9876543210 attempt 2, job build, step dbt_build, by octocat',
    ],
    [
      'GitLab CI',
      { GITLAB_CI: 'true', CI_PIPELINE_ID: '5001', CI_JOB_ID: '77', CI_JOB_NAME: 'dbt', CI_PIPELINE_SOURCE: 'push' },
      'gitlab-5001-77-42',
      'Triggered by GitLab CI: pipeline 5001 (push), job dbt',
    ],
    [
      'Buildkite',
      {
        BUILDKITE: 'true',
        BUILDKITE_BUILD_ID: '0190b6e5-7f55-4b2e-9c3a-6a3b2c1d0e9f',
        BUILDKITE_BUILD_NUMBER: '314',
        BUILDKITE_PIPELINE_SLUG: 'analytics',
      },
      'buildkite-0190b6e5-7f55-4b2e-9c3a-6a3b2c1d0e9f-42',
      'Triggered by Buildkite: pipeline analytics, build 314',
    ],
    [
      'CircleCI',
      { CIRCLECI: 'true', CIRCLE_WORKFLOW_ID: 'wf-1', CIRCLE_BUILD_NUM: '88', CIRCLE_JOB: 'dbt-build' },
      'circleci-wf-1-88-42',
      'Triggered by CircleCI: job dbt-build, build 88',
    ],
    [
      'Jenkins',
      { JENKINS_URL: 'http://127.0.0.1:8081/', JOB_NAME: 'analytics/nightly', BUILD_NUMBER: '12' },
      'jenkins-analytics_nightly-12-42',
      'Triggered by Jenkins: job analytics/nightly, build 12',
    ],
    [
      'Jenkins with BUILD_TAG only',
      { JENKINS_URL: 'http://127.0.0.1:8081/', BUILD_TAG: 'jenkins-nightly-12' },
      'jenkins-jenkins-nightly-12-42',
      'Triggered by Jenkins: jenkins-nightly-12',
    ],
    [
      'Airflow (inside any CI)',
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_RUN_ID: '1',
        AIRFLOW_CTX_DAG_ID: 'nightly',
        AIRFLOW_CTX_DAG_RUN_ID: 'scheduled__2026-11-20T00:00:00+00:00',
        AIRFLOW_CTX_TASK_ID: 'dbt_build',
        AIRFLOW_CTX_TRY_NUMBER: '3',
      },
      expect.stringMatching(/^airflow-[0-9a-f]{56}$/),
      'Triggered by Airflow: task dbt_build of DAG nightly, run scheduled__2026-11-20T00:00:00+00:00, try 3',
    ],
  ])('%s', (_name, env, runId, reason) => {
    const settings = jobSettingsFrom({ jobId: '42' }, env, newRunId);
    expect(settings).toMatchObject({ runId, runReason: reason, runIdGenerated: false });
    expect(settings.runId.length).toBeLessThanOrEqual(64);
    // The same step run again gives the same run id: its events are the same events.
    expect(jobSettingsFrom({ jobId: '42' }, { ...env }, () => 'other').runId).toBe(settings.runId);
  });

  test('another attempt, another task try or another dbt job is another run', () => {
    const github = { GITHUB_ACTIONS: 'true', GITHUB_RUN_ID: '10', GITHUB_RUN_ATTEMPT: '1' };
    const first = jobSettingsFrom({ jobId: '42' }, github, newRunId).runId;
    expect(jobSettingsFrom({ jobId: '42' }, { ...github, GITHUB_RUN_ATTEMPT: '2' }, newRunId).runId).not.toBe(first);
    expect(jobSettingsFrom({ jobId: '43' }, github, newRunId).runId).not.toBe(first);
    const airflow = { AIRFLOW_CTX_DAG_ID: 'd', AIRFLOW_CTX_DAG_RUN_ID: 'r', AIRFLOW_CTX_TASK_ID: 't' };
    expect(jobSettingsFrom({ jobId: '42' }, { ...airflow, AIRFLOW_CTX_TRY_NUMBER: '1' }, newRunId).runId).toBe(
      'airflow-d-r-t-1-42',
    );
    expect(jobSettingsFrom({ jobId: '42' }, { ...airflow, AIRFLOW_CTX_TRY_NUMBER: '2' }, newRunId).runId).toBe(
      'airflow-d-r-t-2-42',
    );
  });

  test('two reported steps of one CI job, parallel copies of a job or stages of a build are two runs', () => {
    const runId = (env: NodeJS.ProcessEnv) => jobSettingsFrom({ jobId: '42' }, env, newRunId).runId;
    const github = { GITHUB_ACTIONS: 'true', GITHUB_RUN_ID: '10', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'dbt' };
    // dbt seed in one step, dbt build in the next: GITHUB_ACTION is each step's id (__run, __run_2, ... without one).
    expect(runId({ ...github, GITHUB_ACTION: '__run' })).toBe('github-10-1-dbt-__run-42');
    expect(runId({ ...github, GITHUB_ACTION: '__run_2' })).toBe('github-10-1-dbt-__run_2-42');
    const circle = { CIRCLECI: 'true', CIRCLE_WORKFLOW_ID: 'wf', CIRCLE_BUILD_NUM: '88', CIRCLE_NODE_TOTAL: '2' };
    expect(runId({ ...circle, CIRCLE_NODE_INDEX: '0' })).toBe('circleci-wf-88-0-42');
    expect(runId({ ...circle, CIRCLE_NODE_INDEX: '1' })).toBe('circleci-wf-88-1-42');
    expect(runId({ ...circle, CIRCLE_NODE_TOTAL: '1', CIRCLE_NODE_INDEX: '0' })).toBe('circleci-wf-88-42');
    const jenkins = { JENKINS_URL: 'http://127.0.0.1:8081/', JOB_NAME: 'nightly', BUILD_NUMBER: '12' };
    expect(runId({ ...jenkins, STAGE_NAME: 'seed' })).toBe('jenkins-nightly-12-seed-42');
    expect(runId({ ...jenkins, STAGE_NAME: 'build' })).toBe('jenkins-nightly-12-build-42');
  });

  test('a long run id is a hash of the same identifiers: stable, and within 64 characters', () => {
    const run = { system: 'buildkite', parts: ['a'.repeat(40), 'b'.repeat(40)], reason: '' };
    expect(runIdOf(run, '42')).toBe(runIdOf({ ...run }, '42'));
    expect(runIdOf(run, '42')).toHaveLength(64);
    expect(runIdOf(run, '43')).not.toBe(runIdOf(run, '42'));
  });

  test('no CI: a generated run id, said to be generated; the reason names the user', () => {
    expect(detectCi({ USER: 'ana' })).toBeNull();
    expect(jobSettingsFrom({ jobId: '42' }, { USER: 'ana' }, newRunId)).toEqual({
      jobId: '42',
      jobName: null,
      environmentId: '',
      environmentName: null,
      runId: 'generated-id',
      runIdGenerated: true,
      runReason: 'Kicked off from the command line by ana',
    });
  });
});

describe('the job settings: flags, then JOBHOOKS_DBT_* variables', () => {
  const env = {
    JOBHOOKS_DBT_JOB_ID: '7',
    JOBHOOKS_DBT_JOB_NAME: 'Nightly',
    JOBHOOKS_DBT_ENVIRONMENT_ID: '3',
    JOBHOOKS_DBT_ENVIRONMENT_NAME: 'Production',
    JOBHOOKS_DBT_RUN_ID: 'run-from-env',
    JOBHOOKS_DBT_RUN_REASON: 'Nightly schedule',
    GITHUB_ACTIONS: 'true',
    GITHUB_RUN_ID: '1',
  };

  test('the variables, over the CI run', () => {
    expect(jobSettingsFrom({}, env, newRunId)).toEqual({
      jobId: '7',
      jobName: 'Nightly',
      environmentId: '3',
      environmentName: 'Production',
      runId: 'run-from-env',
      runIdGenerated: false,
      runReason: 'Nightly schedule',
    });
  });

  test('the flags, over the variables', () => {
    const flags = {
      jobId: '8',
      jobName: 'Hourly',
      environmentId: '4',
      environmentName: 'Staging',
      runId: 'r-1',
      reason: 'By hand',
    };
    expect(jobSettingsFrom(flags, env, newRunId)).toMatchObject({
      jobId: '8',
      jobName: 'Hourly',
      environmentId: '4',
      environmentName: 'Staging',
      runId: 'r-1',
      runReason: 'By hand',
    });
  });

  test.each([
    [{}, {}, /^No job id: set JOBHOOKS_DBT_JOB_ID or pass --job-id/],
    [{ jobId: '007' }, {}, /^--job-id must be a job id \(a positive whole number\), not "007"\.$/],
    [{}, { JOBHOOKS_DBT_JOB_ID: 'nightly' }, /^JOBHOOKS_DBT_JOB_ID must be a job id/],
    [{ jobId: '1', runId: 'x'.repeat(65) }, {}, /^--run-id must be 1 to 64 characters/],
    [
      {},
      { JOBHOOKS_DBT_JOB_ID: '1', JOBHOOKS_DBT_ENVIRONMENT_ID: 'e'.repeat(70) },
      /^JOBHOOKS_DBT_ENVIRONMENT_ID must be at most 64 characters, not 70\.$/,
    ],
    [{ jobId: '1', environmentId: 'e'.repeat(65) }, {}, /^--environment-id must be at most 64 characters, not 65\.$/],
  ])('%j %j: one sentence naming the setting', (flags, environment, message) => {
    expect(() => jobSettingsFrom(flags, environment, newRunId)).toThrow(message);
  });
});

describe('what jobhooks-dbt reads of the dbt command', () => {
  test("the artifacts' folder: --target-path, DBT_TARGET_PATH, or target/ in the project folder", () => {
    expect(dbtPaths(['build'], {}, '/ci/repo')).toEqual({ projectDir: '/ci/repo', targetPath: '/ci/repo/target' });
    expect(dbtPaths(['build', '--project-dir', 'analytics'], {}, '/ci/repo')).toEqual({
      projectDir: '/ci/repo/analytics',
      targetPath: '/ci/repo/analytics/target',
    });
    expect(dbtPaths(['build', '--target-path=out'], { DBT_PROJECT_DIR: '/p' }, '/ci')).toEqual({
      projectDir: '/p',
      targetPath: '/p/out',
    });
    expect(dbtPaths(['build'], { DBT_TARGET_PATH: '/tmp/t' }, '/ci').targetPath).toBe('/tmp/t');
    expect(dbtPaths(['build', '--target-path', 'x'], {}, '/ci', 'elsewhere').targetPath).toBe('/ci/elsewhere');
    // dbt_project.yml's target-path, after the flag and the variable.
    for (const yml of ['target-path: build', 'name: p\ntarget-path: "build"  # moved', "target-path: 'build'"])
      expect(dbtPaths(['build'], {}, '/ci', undefined, yml).targetPath).toBe('/ci/build');
    // An empty value is none (not the next line); of Jinja, env_var alone is read.
    expect(dbtPaths(['build'], {}, '/ci', undefined, 'target-path:\nclean-targets: [x]').targetPath).toBe('/ci/target');
    const fromEnv = `target-path: "{{ env_var('DBT_OUT', 'out') }}"`;
    expect(dbtPaths(['build'], {}, '/ci', undefined, fromEnv).targetPath).toBe('/ci/out');
    expect(dbtPaths(['build'], { DBT_OUT: 'o2' }, '/ci', undefined, fromEnv).targetPath).toBe('/ci/o2');
    expect(dbtPaths(['build'], {}, '/ci', undefined, 'target-path: "{{ var(\'x\') }}"').targetPath).toBe('/ci/target');
    expect(dbtPaths(['build', '--target-path=out'], {}, '/ci', undefined, 'target-path: build').targetPath).toBe(
      '/ci/out',
    );
    expect(dbtPaths(['build'], { DBT_TARGET_PATH: 't' }, '/ci', undefined, 'target-path: build').targetPath).toBe(
      '/ci/t',
    );
  });

  test('the target names the environment; the project name comes from dbt_project.yml', () => {
    expect(dbtTarget(['build', '-t', 'prod'], {})).toBe('prod');
    expect(dbtTarget(['build', '--target=ci'], { DBT_TARGET: 'dev' })).toBe('ci');
    expect(dbtTarget(['build'], { DBT_TARGET: 'dev' })).toBe('dev');
    expect(dbtTarget(['build'], {})).toBeNull();
    expect(projectNameIn("# a project\nname: 'jaffle_shop'\nversion: '1.0.0'\n")).toBe('jaffle_shop');
    expect(projectNameIn('name: analytics # ours\n')).toBe('analytics');
    expect(projectNameIn('version: 2\n')).toBeNull();
    expect(projectNameIn(null)).toBeNull();
  });
});
