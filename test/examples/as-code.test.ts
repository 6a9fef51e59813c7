// The webhooks-as-code example holds: its webhooks.yml validates with the built binary when its variables are set
// and names the one that is not, and its workflow plans pull requests, applies main, and keeps the new secrets out
// of the log and out of artifacts.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { runAsCode } from '../as-code/run-as-code';

const EXAMPLE = resolve(__dirname, '..', '..', 'examples', 'as-code');
const WEBHOOKS_TEXT = readFileSync(join(EXAMPLE, 'webhooks.yml'), 'utf8');
const WORKFLOW_TEXT = readFileSync(join(EXAMPLE, '.github', 'workflows', 'webhooks.yml'), 'utf8');

/** Values for the file's own variables, as the workflow would give them. */
const VARIABLES = {
  SLACK_BRIDGE_URL: 'https://hooks.example.com/slack',
  PAGERDUTY_BRIDGE_URL: 'https://hooks.example.com/pagerduty',
  CATALOG_WEBHOOK_URL: 'https://catalog.example.com/hooks/dbt',
  NIGHTLY_JOB_ID: '4711',
};

/** The `${NAME}` placeholders in the values of a YAML text (not in its comments), `$${` (a literal) excepted. */
function placeholders(text: string): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string')
      for (const match of value.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) names.add(match[1]!);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  visit(parse(text, { merge: true }));
  return names;
}

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Job {
  if?: string;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const workflow = parse(WORKFLOW_TEXT) as Workflow;
const jobs = Object.values(workflow.jobs);
const pullRequestJobs = jobs.filter((job) => /github\.event_name == 'pull_request'/.test(job.if ?? ''));
const mainJobs = jobs.filter((job) => /github\.ref == 'refs\/heads\/main'/.test(job.if ?? ''));
const runs = (job: Job) => job.steps.map((step) => step.run ?? '').join('\n');

describe('examples/as-code/webhooks.yml', () => {
  test('the file is written as the example says: schema line, namespace, an x- anchor merged twice', () => {
    expect(WEBHOOKS_TEXT.split('\n')[0]).toBe(
      '# yaml-language-server: $schema=./node_modules/@jobhooks/as-code/webhooks.schema.json',
    );
    expect(WEBHOOKS_TEXT).toMatch(/^namespace: analytics$/m);
    const anchor = /^x-[\w-]+: &([\w-]+)$/m.exec(WEBHOOKS_TEXT)?.[1];
    expect(anchor).toBeDefined();
    expect(WEBHOOKS_TEXT.split(`<<: *${anchor}`)).toHaveLength(3);
    expect(WEBHOOKS_TEXT).toMatch(/^ {4}job_ids:\n {6}- \$\{NIGHTLY_JOB_ID\}$/m);
    expect(WEBHOOKS_TEXT).toMatch(/^ {4}active: false$/m);
    expect([...placeholders(WEBHOOKS_TEXT)].sort()).toEqual(Object.keys(VARIABLES).sort());
  });

  test('validate, with the variables set, accepts it and counts its webhooks', async () => {
    const declared = Object.keys((parse(WEBHOOKS_TEXT, { merge: true }) as { webhooks: object }).webhooks);
    expect(declared).toHaveLength(4);
    const run = await runAsCode(['validate', 'webhooks.yml'], { cwd: EXAMPLE, env: VARIABLES });
    expect(run).toEqual({
      code: 0,
      stdout: `${declared.length} webhooks in 1 file (namespace analytics): valid.\n`,
      stderr: '',
    });
  });

  test('validate, with one variable not set, names it at its file and line', async () => {
    const { SLACK_BRIDGE_URL: _, ...others } = VARIABLES;
    const line = WEBHOOKS_TEXT.split('\n').findIndex((text) => text.includes('${SLACK_BRIDGE_URL}')) + 1;
    const run = await runAsCode(['validate', 'webhooks.yml'], { cwd: EXAMPLE, env: others });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `webhooks.yml:${line}: slack-failures: the environment variable SLACK_BRIDGE_URL is not set\n` +
        'jobhooks-as-code: 1 problem in the files; nothing was sent to the server.\n',
    });
  });
});

describe('examples/as-code/.github/workflows/webhooks.yml', () => {
  test('it runs on pull requests and on pushes to main, with one plan job and one apply job', () => {
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['pull_request', 'push']));
    expect(workflow.on.push).toEqual({ branches: ['main'] });
    expect(pullRequestJobs).toHaveLength(1);
    expect(mainJobs).toHaveLength(1);
  });

  test('a pull request is validated, then planned with --detailed-exitcode, where 2 does not fail the job', () => {
    const [job] = pullRequestJobs;
    const script = runs(job!);
    expect(script).toMatch(/npx jobhooks-as-code validate /);
    const plan = job!.steps.find((step) => /jobhooks-as-code plan .*--detailed-exitcode/.test(step.run ?? ''));
    expect(plan).toBeDefined();
    expect(script.indexOf('jobhooks-as-code validate')).toBeLessThan(script.indexOf('jobhooks-as-code plan'));
    // The exit code is captured (a bare exit 2 would fail the step) and anything but 0 and 2 fails it.
    expect(plan!.run).toMatch(/\|\| code=\$\?/);
    expect(plan!.run).toMatch(/^\s*2\) /m);
    expect(plan!.run).toMatch(/\*\) exit "\$code"/);
    expect(plan!.env).toEqual({ JOBHOOKS_TOKEN: '${{ secrets.JOBHOOKS_TOKEN }}' });
  });

  test('main is applied with --auto-approve --secrets-out, one apply at a time, never cancelled midway', () => {
    const [job] = mainJobs;
    expect(runs(job!)).toMatch(
      /npx jobhooks-as-code apply .*--auto-approve --secrets-out "\$RUNNER_TEMP\/webhook-secrets\.json"/,
    );
    expect(job!.concurrency).toMatchObject({ 'cancel-in-progress': false });
    expect(job!.concurrency!.group).not.toMatch(/\$\{\{/); // one group for every run, not one per ref or run
  });

  test('the connection and the file variables come from vars, the token only from secrets', () => {
    expect(workflow.env).toMatchObject({
      JOBHOOKS_HOST_URL: '${{ vars.JOBHOOKS_HOST_URL }}',
      JOBHOOKS_ACCOUNT_ID: '${{ vars.JOBHOOKS_ACCOUNT_ID }}',
    });
    for (const name of placeholders(WEBHOOKS_TEXT)) expect(workflow.env[name]).toBe(`\${{ vars.${name} }}`);
    expect(WORKFLOW_TEXT.match(/JOBHOOKS_TOKEN: .*/g)).toEqual([
      'JOBHOOKS_TOKEN: ${{ secrets.JOBHOOKS_TOKEN }}',
      'JOBHOOKS_TOKEN: ${{ secrets.JOBHOOKS_TOKEN }}',
    ]);
  });

  test('the secrets file is handed over and removed even after a failure, and never printed or uploaded', () => {
    const [job] = mainJobs;
    const steps = job!.steps;
    for (const step of jobs.flatMap((each) => each.steps)) {
      expect(step.uses ?? '').not.toMatch(/upload-artifact|cache@/);
      const run = step.run ?? '';
      expect(run).not.toMatch(/\b(cat|echo|printf|head|tail|less|more)\b[^\n|]*(secrets_file|webhook-secrets)/);
      // A secret may be piped into a command, never written to the log.
      expect(run).not.toMatch(/\b(echo|printf)\b[^\n|]*\$\{?secret\b[^\n|]*$/m);
      expect(run).not.toMatch(/--show-secrets|set -x/);
    }
    const apply = steps.findIndex((step) => /jobhooks-as-code apply/.test(step.run ?? ''));
    const handOff = steps.findIndex((step) => /secret manager/i.test(step.name ?? ''));
    const removal = steps.findIndex((step) => /\brm -f "\$RUNNER_TEMP"\/webhook-secrets\.json/.test(step.run ?? ''));
    expect(apply).toBeGreaterThanOrEqual(0);
    expect([handOff > apply, removal > handOff]).toEqual([true, true]);
    expect(steps[handOff]!.if).toBe('always()');
    expect(steps[removal]!.if).toBe('always()');
    // The hand-off reads the file only with jq, whose output goes straight to the secret manager.
    expect(steps[handOff]!.run).toMatch(/jq -r .* "\$secrets_file" \|/);
  });
});

test("the example's package.json installs @jobhooks/as-code as a devDependency and scripts its commands", () => {
  const manifest = JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8')) as {
    private: boolean;
    scripts: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  expect(manifest.private).toBe(true);
  expect(manifest.devDependencies).toEqual({ '@jobhooks/as-code': '^0.1.0' });
  for (const command of ['validate', 'plan', 'apply'])
    expect(manifest.scripts[command]).toBe(`jobhooks-as-code ${command} webhooks.yml`);
});
