// Which CI or orchestrator run this process belongs to, from the variables each one sets: the identifiers that make
// a run id (the same on every repeat of the same step, so a retried report posts the same events) and a sentence
// naming the trigger, for runReason.
import { createHash } from 'node:crypto';
import { maxLengthOf } from './contract-limits';

export interface CiRun {
  /** A short name of the system, the run id's prefix. */
  system: string;
  /** The identifiers of this run of the step, most general first. */
  parts: string[];
  /** What started the run, in the words of dbt Cloud's runReason ("Triggered by ..."). */
  reason: string;
}

type Env = NodeJS.ProcessEnv;

const set = (env: Env, name: string): string | null => {
  const value = env[name];
  return value === undefined || value.trim() === '' ? null : value.trim();
};

/** Each system: when its variables are there, the run it names. The first that matches wins. */
const SYSTEMS: ReadonlyArray<(env: Env) => CiRun | null> = [
  // Airflow first: a dbt task inside a CI job is still an Airflow task run.
  (env) => {
    const [dag, dagRun, task] = ['AIRFLOW_CTX_DAG_ID', 'AIRFLOW_CTX_DAG_RUN_ID', 'AIRFLOW_CTX_TASK_ID'].map((name) =>
      set(env, name),
    );
    if (!dag || !dagRun || !task) return null;
    const tryNumber = set(env, 'AIRFLOW_CTX_TRY_NUMBER') ?? '1';
    return {
      system: 'airflow',
      parts: [dag, dagRun, task, tryNumber],
      reason: `Triggered by Airflow: task ${task} of DAG ${dag}, run ${dagRun}, try ${tryNumber}`,
    };
  },
  (env) => {
    const runId = set(env, 'GITHUB_RUN_ID');
    if (set(env, 'GITHUB_ACTIONS') !== 'true' || !runId) return null;
    const attempt = set(env, 'GITHUB_RUN_ATTEMPT') ?? '1';
    const job = set(env, 'GITHUB_JOB');
    // The step: its id, or __run, __run_2, ... in order; the same when the job is run again, so two reported
    // steps of one job are two runs and a retried step is the same run.
    const step = set(env, 'GITHUB_ACTION');
    const workflow = set(env, 'GITHUB_WORKFLOW') ?? 'a workflow';
    const event = set(env, 'GITHUB_EVENT_NAME');
    const actor = set(env, 'GITHUB_ACTOR');
    return {
      system: 'github',
      parts: [runId, attempt, ...(job ? [job] : []), ...(step ? [step] : [])],
      reason:
        `Triggered by GitHub Actions: workflow ${workflow}${event ? ` (${event})` : ''}, run ${runId} attempt ${attempt}` +
        `${job ? `, job ${job}` : ''}${step ? `, step ${step}` : ''}${actor ? `, by ${actor}` : ''}`,
    };
  },
  (env) => {
    const pipeline = set(env, 'CI_PIPELINE_ID');
    const job = set(env, 'CI_JOB_ID');
    if (set(env, 'GITLAB_CI') !== 'true' || !pipeline || !job) return null;
    const source = set(env, 'CI_PIPELINE_SOURCE');
    const user = set(env, 'GITLAB_USER_LOGIN');
    return {
      system: 'gitlab',
      parts: [pipeline, job],
      reason:
        `Triggered by GitLab CI: pipeline ${pipeline}${source ? ` (${source})` : ''}, job ${set(env, 'CI_JOB_NAME') ?? job}` +
        `${user ? `, by ${user}` : ''}`,
    };
  },
  (env) => {
    const build = set(env, 'BUILDKITE_BUILD_ID');
    if (set(env, 'BUILDKITE') !== 'true' || !build) return null;
    const job = set(env, 'BUILDKITE_JOB_ID');
    const number = set(env, 'BUILDKITE_BUILD_NUMBER');
    const pipeline = set(env, 'BUILDKITE_PIPELINE_SLUG');
    return {
      system: 'buildkite',
      parts: [build, ...(job ? [job] : [])],
      reason: `Triggered by Buildkite: pipeline ${pipeline ?? 'unknown'}, build ${number ?? build}`,
    };
  },
  (env) => {
    const buildNum = set(env, 'CIRCLE_BUILD_NUM');
    if (set(env, 'CIRCLECI') !== 'true' || !buildNum) return null;
    const workflow = set(env, 'CIRCLE_WORKFLOW_ID');
    // Parallel copies of a job share its build number: each has its node index.
    const node = Number(set(env, 'CIRCLE_NODE_TOTAL') ?? '1') > 1 ? set(env, 'CIRCLE_NODE_INDEX') : null;
    return {
      system: 'circleci',
      parts: [...(workflow ? [workflow] : []), buildNum, ...(node ? [node] : [])],
      reason: `Triggered by CircleCI: job ${set(env, 'CIRCLE_JOB') ?? 'unknown'}, build ${buildNum}`,
    };
  },
  (env) => {
    const tag = set(env, 'BUILD_TAG');
    const job = set(env, 'JOB_NAME');
    const number = set(env, 'BUILD_NUMBER');
    if (!set(env, 'JENKINS_URL') || !((job && number) || tag)) return null;
    // A pipeline's stages (parallel ones too) share the build: each has its name.
    const stage = set(env, 'STAGE_NAME');
    return {
      system: 'jenkins',
      parts: [...(job && number ? [job, number] : [tag!]), ...(stage ? [stage] : [])],
      reason: `Triggered by Jenkins: ${job && number ? `job ${job}, build ${number}` : tag}${stage ? `, stage ${stage}` : ''}`,
    };
  },
];

/** The CI or orchestrator run of this environment, or null when none is recognised. */
export function detectCi(env: Env): CiRun | null {
  for (const system of SYSTEMS) {
    const run = system(env);
    if (run !== null) return run;
  }
  return null;
}

/**
 * The run id of a CI run's dbt job: readable when it fits the contract's limit (`github-123-1-build-42`), else the system's name and a
 * hash of the same identifiers, so it is the same on every repeat either way. The dbt job id is part of it, so two
 * jobs reported from one CI run stay two runs.
 */
export function runIdOf(run: CiRun, jobId: string): string {
  const max = maxLengthOf('runId');
  const readable = [run.system, ...run.parts, jobId].map((part) => part.replace(/[^A-Za-z0-9_.:-]+/g, '_')).join('-');
  if (readable.length <= max) return readable;
  const digest = createHash('sha256')
    .update(JSON.stringify([...run.parts, jobId]))
    .digest('hex');
  return `${run.system}-${digest}`.slice(0, max);
}
