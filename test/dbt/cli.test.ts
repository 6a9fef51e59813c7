// The command line in process, with its outside world passed in: a clock, files, a dbt that ends as told, signals
// and an API that answers as told. Usage errors, the connection, a dbt that cannot start, signals. Posts that
// fail against real servers are in posting.test.ts.
import { ApiError, type Connection, CONNECTION_HELP, type IngestInput, type RetryWait } from '@jobhooks/client';

const LOST: RetryWait['cause'] = { kind: 'unreachable', error: 'other side closed' };
const RATE_LIMITED: RetryWait['cause'] = { kind: 'status', status: 429, retryAfter: '1' };
import type { IngestedEvent } from '@jobhooks/client/contract';
import { USAGE as AS_CODE_USAGE } from '../../provider/as-code/src/cli';
import { runCli, USAGE } from '../../provider/dbt/src/cli';
import type { DbtToolIo, ExitStatus } from '../../provider/dbt/src/io';
import { recordedCommandLineOf } from '../../provider/dbt/src/dbt-command';
import {
  dbtTime,
  DBT_VERSIONS,
  manifestOf,
  PLACEHOLDERS,
  PROJECT,
  PROJECT_ID,
  runResultsOf,
  SCENARIOS,
} from './support/dbt-artifacts';

interface World {
  io: DbtToolIo;
  stderr: () => string;
  stdout: () => string;
  posted: IngestInput[];
  connections: Connection[];
  spawned: Array<{ command: string; args: readonly string[] }>;
  killed: string[];
  cancel: (signal: NodeJS.Signals) => void;
}

const CONNECTION = { JOBHOOKS_HOST_URL: 'http://127.0.0.1:9/api', JOBHOOKS_ACCOUNT_ID: '1', JOBHOOKS_TOKEN: 't' };

/** A world where dbt ends with `exit` after writing `writes` (path -> text), and the API answers with `answer`. */
function world(options: {
  env?: NodeJS.ProcessEnv;
  exit?: ExitStatus;
  writes?: () => Record<string, string>;
  answer?: (input: IngestInput, how?: { onRetryWait?: (wait: RetryWait) => void }) => Promise<IngestedEvent>;
}): World {
  let err = '';
  let out = '';
  const files = new Map<string, string>();
  const posted: IngestInput[] = [];
  const connections: Connection[] = [];
  const spawned: World['spawned'] = [];
  const killed: string[] = [];
  let cancelHandler: ((signal: NodeJS.Signals) => void) | null = null;
  let endDbt: (() => void) | null = null;
  let clock = Date.parse('2026-11-20T09:00:00Z');
  const io: DbtToolIo = {
    cwd: '/ci/jaffle_shop',
    env: { ...CONNECTION, JOBHOOKS_DBT_JOB_ID: '42', ...options.env },
    now: () => new Date((clock += 1000)),
    newRunId: () => '5f0c6c1e-2d4b-4a51-9d8e-6f7a8b9c0d1e',
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    readFile: (path) => files.get(path) ?? null,
    // What a test gives readFile (it may replace it), cut: as the real one reads a file's start.
    readStart: (path, bytes) => {
      const text = io.readFile(path);
      return typeof text === 'string' ? text.slice(0, bytes) : text;
    },
    spawn: (command, args) => {
      spawned.push({ command, args });
      const exited = new Promise<ExitStatus>((resolve) => {
        endDbt = () => {
          for (const [path, text] of Object.entries(options.writes?.() ?? {})) files.set(path, text);
          resolve(options.exit ?? { code: 0, signal: null, startError: null });
        };
      });
      // dbt ends on its own unless a test cancels it first.
      setImmediate(() => cancelHandler === null || killed.length > 0 || endDbt!());
      return { exited, kill: (signal) => void (killed.push(signal), endDbt!()) };
    },
    timeout: () => new AbortController().signal,
    onCancel: (handler) => {
      cancelHandler = handler;
      return () => void (cancelHandler = null);
    },
    poster: (_connection: Connection) => ({
      ingest: async (input, how) => {
        posted.push(input);
        return (options.answer ?? (async () => ({ event_id: 'wev_1', deliveries: 1, skipped: 0, duplicate: false })))(
          input,
          how,
        );
      },
    }),
  };
  const poster = io.poster;
  io.poster = (connection) => (connections.push(connection), poster(connection));
  return {
    io,
    stderr: () => err,
    stdout: () => out,
    posted,
    connections,
    spawned,
    killed,
    cancel: (signal) => cancelHandler?.(signal),
  };
}

/** run_results.json of a 1.9 run that ended now, as dbt writes it. */
const written = (scenario: keyof typeof SCENARIOS) => () => ({
  '/ci/jaffle_shop/target/run_results.json': JSON.stringify(
    runResultsOf(DBT_VERSIONS[4]!, SCENARIOS[scenario].nodes, {
      ...PLACEHOLDERS,
      invocationId: 'inv-1',
      startedAt: dbtTime(new Date('2026-11-20T09:00:01Z')),
      generatedAt: dbtTime(new Date('2026-11-20T09:00:30Z')),
      elapsed: 29,
    }),
  ),
});

describe('usage errors: exit 2 and one sentence, nothing run', () => {
  test.each([
    [['run', 'dbt', 'build'], 'Put the dbt command after --, as in: jobhooks-dbt run --job-id 42 -- dbt build'],
    [['run', '--'], 'No dbt command: put it after --, as in: jobhooks-dbt run -- dbt build'],
    [['run', '--jb-id', '4', '--', 'dbt'], "Unknown option '--jb-id' (see --help)."],
    [['emit'], 'emit needs --run-results PATH: the run_results.json of the run to report.'],
    // The token is read from the environment only: flags end up in shell history and process lists.
    [['run', '--token', 'jhk_secret', '--', 'dbt'], "Unknown option '--token' (see --help)."],
    [['deploy'], 'Unknown command "deploy"; the commands are run and emit (see --help).'],
  ])('%j', async (argv, message) => {
    const w = world({});
    expect(await runCli(argv, w.io)).toBe(2);
    expect(w.stderr()).toBe(`jobhooks-dbt: ${message}\n`);
    expect(w.spawned).toEqual([]);
    expect(w.posted).toEqual([]);
  });

  test('the connection help is the one every jobhooks command-line tool prints', () => {
    expect(USAGE).toContain(`Connection:\n${CONNECTION_HELP}\n`);
    expect(AS_CODE_USAGE).toContain(`${CONNECTION_HELP}\n`);
  });

  test('no command at all is bad usage: the usage goes to stderr, exit 2', async () => {
    const w = world({});
    expect(await runCli([], w.io)).toBe(2);
    expect(w.stderr()).toBe(USAGE);
    expect(w.stdout()).toBe('');
  });

  test('--help anywhere before -- prints the usage; a --help after -- is dbt’s', async () => {
    const w = world({});
    expect(await runCli(['run', '--help', '--', 'dbt', 'build'], w.io)).toBe(0);
    expect(w.stdout()).toBe(USAGE);
    const passed = world({ writes: written('success') });
    expect(await runCli(['run', '--', 'dbt', '--help'], passed.io)).toBe(0);
    expect(passed.spawned).toEqual([{ command: 'dbt', args: ['--help'] }]);
  });
});

describe('run', () => {
  test('whatever fails after dbt has ended, the exit code is dbt’s, and the failure is one sentence', async () => {
    const w = world({ exit: { code: 1, signal: null, startError: null } });
    let reads = 0;
    w.io.readFile = () => {
      reads += 1;
      if (reads > 2) throw new Error('the disk went away');
      return null;
    };
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io)).toBe(1);
    expect(w.stderr()).toContain('jobhooks-dbt: the end of the run could not be reported (the disk went away).\n');
  });

  test('a started event that was already posted is a warning: another dbt command may have got the same run id', async () => {
    const w = world({
      writes: written('success'),
      answer: async () => ({ event_id: 'wev_first', deliveries: 1, skipped: 0, duplicate: true }),
    });
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io)).toBe(0);
    expect(w.stderr()).toContain(
      'jobhooks-dbt: warning: job.run.started of run r was already posted (wev_first): this run id was reported before, so no event of this run is new. That is right for a step run again; another dbt command of the same CI job needs its own --job-id or JOBHOOKS_DBT_RUN_ID.\n',
    );
    expect(w.stderr()).toContain(
      'jobhooks-dbt: job.run.completed of run r was already posted (wev_first): nothing new was sent.\n',
    );
  });

  test('a post whose first answer was lost, retried, finds its own first sending: posted, with no warning', async () => {
    const w = world({
      writes: written('success'),
      answer: async (_input, how) => {
        // The client's retry after the lost answer.
        how?.onRetryWait?.({ operation: '', waitMs: 0, nextAttempt: 2, maxAttempts: 4, cause: LOST });
        return { event_id: 'wev_kept', deliveries: 1, skipped: 0, duplicate: true };
      },
    });
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io)).toBe(0);
    for (const type of ['job.run.started', 'job.run.completed'])
      expect(w.stderr()).toContain(
        `jobhooks-dbt: ${type} of run r posted (wev_kept; its first answer was lost, and the server had taken it then).\n`,
      );
    expect(w.stderr()).not.toContain('already posted');
    // After a 429 the server took nothing: a duplicate then is another sending's, and the warning stands.
    const refused = world({
      writes: written('success'),
      answer: async (_input, how) => {
        how?.onRetryWait?.({ operation: '', waitMs: 0, nextAttempt: 2, maxAttempts: 4, cause: RATE_LIMITED });
        return { event_id: 'wev_first', deliveries: 1, skipped: 0, duplicate: true };
      },
    });
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], refused.io)).toBe(0);
    expect(refused.stderr()).toContain('jobhooks-dbt: warning: job.run.started of run r was already posted');
  });

  test('a post the server refuses is said once, without the operation repeated', async () => {
    const w = world({
      writes: written('success'),
      answer: async (input) => {
        throw new ApiError(500, 'Boom.', 'internal_error', {}, `Post ${input.event_type} of run r`);
      },
    });
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io)).toBe(0);
    expect(w.stderr()).toContain('jobhooks-dbt: job.run.started of run r was not posted: HTTP 500: Boom.\n');
  });

  test("dbt_project.yml's target-path is where the run's artifacts are read", async () => {
    const results = written('success')()['/ci/jaffle_shop/target/run_results.json']!;
    const w = world({ writes: () => ({ '/ci/jaffle_shop/build/run_results.json': results }) });
    const read = w.io.readFile;
    w.io.readFile = (path) =>
      path === '/ci/jaffle_shop/dbt_project.yml' ? 'name: jaffle_shop\ntarget-path: "build"\n' : read(path);
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io)).toBe(0);
    expect(w.posted.at(-1)!.run).toMatchObject({ runStatusCode: 10, runStatusMessage: 'None' });
  });

  test('outside CI the run id is generated and printed, so the run can be reported again under it', async () => {
    const w = world({ writes: written('success') });
    expect(await runCli(['run', '--', 'dbt', 'build'], w.io)).toBe(0);
    expect(w.stderr()).toContain(
      'jobhooks-dbt: no CI run found: reporting as run 5f0c6c1e-2d4b-4a51-9d8e-6f7a8b9c0d1e (set JOBHOOKS_DBT_RUN_ID=5f0c6c1e-2d4b-4a51-9d8e-6f7a8b9c0d1e to report it again).\n',
    );
    expect(new Set(w.posted.map((e) => e.run.runId))).toEqual(new Set(['5f0c6c1e-2d4b-4a51-9d8e-6f7a8b9c0d1e']));
  });

  test("the connection of the other tools: JOBHOOKS_* first, else terraform-provider-dbtcloud's DBT_CLOUD_*", async () => {
    const dbtCloud = {
      JOBHOOKS_HOST_URL: '',
      JOBHOOKS_ACCOUNT_ID: '',
      JOBHOOKS_TOKEN: '',
      DBT_CLOUD_HOST_URL: 'http://[::1]:9/api',
      DBT_CLOUD_ACCOUNT_ID: '5',
      DBT_CLOUD_TOKEN: 'dbt-cloud-token',
    };
    const w = world({ env: dbtCloud, writes: written('success') });
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io)).toBe(0);
    expect(w.connections).toEqual([
      {
        hostUrl: 'http://[::1]:9/api',
        accountId: 5,
        token: 'dbt-cloud-token',
        tokenVariable: 'DBT_CLOUD_TOKEN',
        accountIdSource: 'DBT_CLOUD_ACCOUNT_ID',
      },
    ]);
    const flags = world({ env: dbtCloud, writes: written('success') });
    await runCli(['emit', '--host-url', 'http://127.0.0.1:9/api', '--account-id', '6', '--run-results', 'x'], flags.io);
    expect(flags.connections[0]).toMatchObject({
      hostUrl: 'http://127.0.0.1:9/api',
      accountId: 6,
      token: 'dbt-cloud-token',
    });
  });

  test('a connection problem is said, and dbt runs all the same, unreported', async () => {
    const w = world({ env: { JOBHOOKS_TOKEN: '' }, writes: written('success') });
    expect(await runCli(['run', '--', 'dbt', 'build'], w.io)).toBe(0);
    expect(w.stderr()).toBe(
      'jobhooks-dbt: No token: set JOBHOOKS_TOKEN (or DBT_CLOUD_TOKEN) to an API token of the account. dbt runs, and this run is not reported.\n',
    );
    expect(w.spawned).toHaveLength(1);
    expect(w.posted).toEqual([]);
  });

  test('a token broken across lines is said, not shown, and dbt runs all the same', async () => {
    const w = world({ env: { JOBHOOKS_TOKEN: 'jhk_first\nSECOND' }, writes: written('success') });
    expect(await runCli(['run', '--', 'dbt', 'build'], w.io)).toBe(0);
    expect(w.stderr()).toBe(
      'jobhooks-dbt: JOBHOOKS_TOKEN: the token holds a space, line break or other character inside it that no API token has (pasted across lines?); it is not shown here. dbt runs, and this run is not reported.\n',
    );
    expect(w.spawned).toHaveLength(1);
  });

  test('--strict with reporting not set up: dbt succeeded, but nothing was posted, so exit 1', async () => {
    const w = world({ env: { JOBHOOKS_TOKEN: '' }, writes: written('success') });
    expect(await runCli(['run', '--strict', '--', 'dbt', 'build'], w.io)).toBe(1);
    expect(w.stderr()).toContain('jobhooks-dbt: --strict: dbt succeeded, but the run was not reported; exiting 1.\n');
    expect(w.spawned).toHaveLength(1);
    const failed = world({ env: { JOBHOOKS_TOKEN: '' }, exit: { code: 1, signal: null, startError: null } });
    expect(await runCli(['run', '--strict', '--', 'dbt', 'build'], failed.io)).toBe(1);
    expect(failed.stderr()).not.toContain('--strict');
  });

  test('the job is named after the dbt command, the value of --vars hidden (it may hold secrets)', async () => {
    const w = world({ writes: written('success') });
    const vars = ['--vars', '{"db_password": "hunter2"}', '--target', 'prod', '--vars={"a": 1}'];
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build', ...vars], w.io)).toBe(0);
    expect(w.posted.map((e) => e.run.jobName)).toEqual([
      'dbt build --vars … --target prod --vars=…',
      'dbt build --vars … --target prod --vars=…',
    ]);
    expect(w.spawned[0]!.args).toEqual(['build', ...vars]);
    // emit names it after dbt's own record of the command line, whose quotes the shell took away.
    const recorded = world({});
    const file = JSON.parse(written('success')()['/ci/jaffle_shop/target/run_results.json']!) as {
      args: Record<string, unknown>;
    };
    file.args.invocation_command = 'dbt docs generate --vars {"load_source_data": true} --target prod';
    recorded.io.readFile = () => JSON.stringify(file);
    expect(await runCli(['emit', '--run-id', 'r', '--run-results', 'target/run_results.json'], recorded.io)).toBe(0);
    expect(recorded.posted.at(-1)!.run.jobName).toBe('dbt docs generate --vars … --target prod');
    // Every --vars, and all of a mapping's value, however its strings look: ` --` inside one ends nothing.
    const lines: Array<[string, string]> = [
      ['dbt run --vars {"db": "x --x", "api_key": "K2"} --select a', 'dbt run --vars … --select a'],
      ["dbt run --vars={'a': {'b': '}'}} --vars key: K3 --x --select b", 'dbt run --vars=… --vars … --x --select b'],
      ['dbt run --vars {"unclosed": "K4 --select c', 'dbt run --vars …'],
    ];
    for (const [line, shown] of lines) expect(recordedCommandLineOf(line)).toBe(shown);
  });

  test('a command that cannot be started exits 127 and is reported as errored', async () => {
    const w = world({ exit: { code: null, signal: null, startError: 'spawn dbt ENOENT' } });
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io)).toBe(127);
    expect(w.stderr()).toContain('jobhooks-dbt: dbt could not be started (spawn dbt ENOENT).\n');
    expect(w.posted.at(-1)!.run).toMatchObject({
      runStatusCode: 20,
      runStatusMessage: 'dbt could not be started (spawn dbt ENOENT).',
    });
  });

  test('the first SIGINT or SIGTERM is passed on to dbt as SIGINT, and no later one; the run completes as cancelled', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const w = world({ writes: written('cancelled'), exit: { code: 2, signal: null, startError: null } });
      const running = runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io);
      // A CI that cancels sends more than one (GitHub Actions: SIGINT, then SIGTERM): a second SIGINT would cut
      // short dbt's writing of what finished.
      w.cancel(signal);
      w.cancel('SIGTERM');
      w.cancel('SIGINT');
      expect(await running).toBe(2);
      expect(w.killed).toEqual(['SIGINT']);
      expect(w.posted.map((e) => [e.event_type, e.run.runStatusCode])).toEqual([
        ['job.run.started', 3],
        ['job.run.completed', 30],
      ]);
      expect(w.posted[1]!.run.runStatusMessage).toBe(`Cancelled by ${signal} after 2 nodes had finished.`);
    }
  });

  test('a signal after which dbt still finishes with 0 is a success, not a cancelled run', async () => {
    const w = world({ writes: written('success'), exit: { code: 0, signal: null, startError: null } });
    const running = runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io);
    w.cancel('SIGTERM');
    expect(await running).toBe(0);
    expect(w.posted.at(-1)!.run).toMatchObject({ runStatusCode: 10, runStatus: 'Success', runStatusMessage: 'None' });
  });

  test('emit --not-before: a run_results.json written before that time is an older run’s, reported as errored', async () => {
    const world1 = world({ writes: written('success') });
    const files = new Map(Object.entries(written('success')()));
    world1.io.readFile = (path) => files.get(path) ?? null;
    const emit = (w: World, notBefore: string) =>
      runCli(['emit', '--run-id', 'r', '--run-results', 'target/run_results.json', '--not-before', notBefore], w.io);
    // Written at 09:00:30: a run that began at 09:00:00 is this one.
    expect(await emit(world1, '2026-11-20T09:00:00.000000+00:00')).toBe(0);
    expect(world1.posted.at(-1)!.run).toMatchObject({ runStatusCode: 10 });
    expect(world1.stderr()).not.toContain('--not-before');
    // Without it, the file is taken as this run's, and stderr says so, with when dbt wrote it.
    const unchecked = world({});
    unchecked.io.readFile = (path) => files.get(path) ?? null;
    expect(await runCli(['emit', '--run-id', 'r', '--run-results', 'target/run_results.json'], unchecked.io)).toBe(0);
    expect(unchecked.stderr()).toContain(
      "jobhooks-dbt: target/run_results.json (written 2026-11-20T09:00:30.000Z) is reported as this run's; pass --not-before with the time the run began, so that a file an earlier run left is refused instead.\n",
    );
    const later = world({});
    later.io.readFile = (path) => files.get(path) ?? null;
    expect(await emit(later, '2026-11-20T09:05:00Z')).toBe(1);
    const problem =
      'target/run_results.json was written at 2026-11-20T09:00:30.000Z, before this run started: this run wrote no results.';
    expect(later.stderr()).toContain(`jobhooks-dbt: ${problem}\n`);
    expect(later.posted.map((e) => [e.event_type, e.run.runStatusCode, e.run.runStatusMessage])).toEqual([
      ['job.run.errored', 20, problem],
      ['job.run.completed', 20, problem],
    ]);
    const bad = world({});
    expect(await emit(bad, 'yesterday')).toBe(2);
    expect(bad.stderr()).toBe(
      'jobhooks-dbt: --not-before must be an ISO 8601 time (2026-11-20T05:00:00Z), not "yesterday".\n',
    );
  });

  describe("the project: dbt_project.yml's name before the run, the manifest's after it", () => {
    /** run_results.json and a manifest of dbt `label`, as written at the end of the run. */
    const withManifest =
      (label: string, manifestPath = '/ci/jaffle_shop/target/manifest.json') =>
      () => ({
        ...written('success')(),
        [manifestPath]: JSON.stringify(
          manifestOf(
            DBT_VERSIONS.find((v) => v.label === label)!,
            PLACEHOLDERS,
          ),
        ),
      });

    test.each([
      ['missing', null],
      ['naming another project', "name: 'old_name'\nversion: '1.0.0'\n"],
    ])(
      'run, dbt_project.yml %s: the end is reported with the manifest’s project, a 1.5 manifest’s id too',
      async (_name, yml) => {
        for (const label of ['1.5', '1.9']) {
          const w = world({ writes: withManifest(label) });
          const files = new Map<string, string>(yml === null ? [] : [['/ci/jaffle_shop/dbt_project.yml', yml]]);
          const read = w.io.readFile;
          w.io.readFile = (path) => files.get(path) ?? read(path);
          expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io)).toBe(0);
          expect(w.posted[0]!.run.projectName).toBe(yml === null ? '' : 'old_name');
          // dbt 1.5 writes only the project's id: the name is the package of the run's nodes with that MD5.
          expect(w.posted.at(-1)!.run).toMatchObject({ projectName: PROJECT, projectId: PROJECT_ID });
        }
      },
    );

    test('emit: the manifest beside run_results.json, or the one --manifest names', async () => {
      const beside = world({});
      const files = new Map(Object.entries(withManifest('1.5')()));
      beside.io.readFile = (path) => files.get(path) ?? null;
      expect(await runCli(['emit', '--run-id', 'r', '--run-results', 'target/run_results.json'], beside.io)).toBe(0);
      expect(beside.posted.at(-1)!.run).toMatchObject({ projectName: PROJECT, projectId: PROJECT_ID });

      const named = world({});
      const elsewhere = new Map(Object.entries(withManifest('1.7', '/ci/jaffle_shop/state/manifest.json')()));
      named.io.readFile = (path) => elsewhere.get(path) ?? null;
      const argv = [
        'emit',
        '--run-id',
        'r',
        '--run-results',
        'target/run_results.json',
        '--manifest',
        'state/manifest.json',
      ];
      expect(await runCli(argv, named.io)).toBe(0);
      expect(named.posted.at(-1)!.run).toMatchObject({ projectName: PROJECT, projectId: PROJECT_ID });
      // Named and missing: said, and the run is still reported.
      const missing = world({});
      missing.io.readFile = (path) => (path.endsWith('/state/manifest.json') ? null : (files.get(path) ?? null));
      expect(await runCli(argv, missing.io)).toBe(0);
      expect(missing.stderr()).toContain('jobhooks-dbt: there is no state/manifest.json to name the project.\n');
      expect(missing.posted.at(-1)!.run).toMatchObject({ projectName: '', projectId: '' });
    });
  });

  test('the previous run’s results are not taken for this run’s, whatever their time, when dbt leaves them as they were', async () => {
    // The same file before and after: dbt (a parse error) did not write.
    const w = world({ exit: { code: 2, signal: null, startError: null } });
    const files = new Map(Object.entries(written('success')()));
    w.io.readFile = (path) => files.get(path) ?? null;
    expect(await runCli(['run', '--run-id', 'r', '--', 'dbt', 'build'], w.io)).toBe(2);
    expect(w.posted.at(-1)!.run.runStatusMessage).toBe(
      "dbt exited with code 2; target/run_results.json is the previous run's (invocation inv-1): this run wrote no results.",
    );
  });
});
