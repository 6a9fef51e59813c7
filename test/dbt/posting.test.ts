// When posting goes wrong, as CI meets it: `jobhooks-dbt run` with the stand-in dbt against a server that is down,
// the real service refusing the token, a server that accepts connections and never answers, and one that answers
// with a web page, all on 127.0.0.1. dbt's exit code stands, each failure is one sentence, --strict turns a success
// into 1, and the posts after the run are bounded by one deadline.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { type Harness, startHarness } from '../support/harness';
import { answer, closedPortUrl, type Receiver, startReceiver } from '../support/receiver';
import { DBT_VERSIONS, SCENARIOS } from './support/dbt-artifacts';
import { type DbtProject, dbtProject, runTool } from './support/stand-in';

jest.setTimeout(60_000);

let h: Harness;
let hostUrl: string;
let project: DbtProject;

beforeAll(async () => {
  h = await startHarness();
  hostUrl = await h.listen();
});
afterAll(() => h.close());
beforeEach(() => {
  project = dbtProject();
});
afterEach(() => project.close());

/** A run of `dbt build` (1.9, a success unless told) reported to `host` with `token`, as run `runId`. */
function runAgainst(host: string, token: string, runId: string, extra: string[] = [], failing = false) {
  const env = {
    ...project.env({ version: DBT_VERSIONS[4]!, scenario: failing ? SCENARIOS.modelError : SCENARIOS.success }),
    JOBHOOKS_HOST_URL: host,
    JOBHOOKS_ACCOUNT_ID: '1',
    JOBHOOKS_TOKEN: token,
    JOBHOOKS_DBT_JOB_ID: '42',
    JOBHOOKS_DBT_RUN_ID: runId,
  };
  return runTool(['run', ...extra, '--', 'dbt', 'build'], project.dir, env);
}

describe('a server that is down (nothing listens on the port)', () => {
  test("each post fails after the client's retries, said in one sentence; dbt's code stands, --strict makes a success 1", async () => {
    const down = `${(await closedPortUrl()).replace(/\/$/, '')}/api`;
    const [lenient, strict, failed] = await Promise.all([
      runAgainst(down, 't', 'down-1').done,
      runAgainst(down, 't', 'down-2', ['--strict']).done,
      runAgainst(down, 't', 'down-3', ['--strict', '--post-timeout', '1'], true).done,
    ]);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain('Running with dbt=1.9.4');
    for (const type of ['job.run.started', 'job.run.completed'])
      expect(lenient.stderr).toMatch(
        new RegExp(
          `^jobhooks-dbt: ${type} of run down-1 was not posted: could not reach ` +
            `${down.replace(/[.]/g, '\\.')} \\(connect ECONNREFUSED [^)]*\\)\\.$`,
          'm',
        ),
      );
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(
      'jobhooks-dbt: --strict: dbt succeeded, but not every event was posted; exiting 1.\n',
    );
    expect(failed.code).toBe(1); // dbt's own code: a failed build keeps it under --strict
    expect(failed.stderr).toContain('job.run.errored of run down-3 was not posted');
  });
});

test('a token without the permission to post events: the service refuses it, and the sentence names the token', async () => {
  const developer = await h.token('Developer');
  const [lenient, strict] = await Promise.all([
    runAgainst(hostUrl, developer, 'refused-1').done,
    runAgainst(hostUrl, developer, 'refused-2', ['--strict']).done,
  ]);
  expect(lenient.code).toBe(0);
  expect(lenient.stderr).toMatch(
    /^jobhooks-dbt: job\.run\.completed of run refused-1 was not posted: The token in JOBHOOKS_TOKEN may not do this on account 1 \(HTTP 403: [^\n]+\)\.$/m,
  );
  expect(strict.code).toBe(1);
});

describe('a server that takes connections and never answers', () => {
  let server: Server;
  let hung: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hung = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('the posts after the run end at the deadline; the wait is said on stderr within a second, with its length', async () => {
    const spawned = Date.now();
    const run = runAgainst(hung, 't', 'hung-1', ['--post-timeout', '2']);
    // dbt's last line, printed once its artifacts are written: the posts, and the deadline, start after it.
    const dbtDone = await run.printed('Done. (stand-in');
    const waitSaid = await run.said(
      `jobhooks-dbt: waiting for the server at ${hung} to take the run's events (at most 2 s in all; --post-timeout).\n`,
    );
    const { code, stderr } = await run.done;
    const ended = Date.now();
    expect(code).toBe(0);
    expect(waitSaid - dbtDone).toBeLessThan(1000);
    // Not four 30 s timeouts per event: the deadline, and the process's own start and end. The deadline starts
    // when dbt has exited; dbt's lines reach this process through jobhooks-dbt's, late on a loaded machine (a CI
    // run measured 1,977 ms from the first), so the deadline's 2 s are counted from the spawn, surely before.
    expect(ended - spawned).toBeGreaterThanOrEqual(2000);
    expect(ended - dbtDone).toBeLessThan(4000);
    for (const type of ['job.run.started', 'job.run.completed'])
      expect(stderr).toContain(
        `jobhooks-dbt: ${type} of run hung-1 was not posted: the server at ${hung} did not take it within 2 s (--post-timeout).\n`,
      );
  });

  test('--post-timeout takes a number of seconds above 0', async () => {
    const run = await runAgainst(hung, 't', 'hung-2', ['--post-timeout', 'soon']).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('jobhooks-dbt: --post-timeout must be a number of seconds above 0, not "soon".\n');
  });
});

test('a 404 on posting an event names the account and where it was looked for', async () => {
  // What a server or proxy without this account's API answers.
  const elsewhere = await startReceiver(answer(404, 'Not Found', { 'content-type': 'text/plain' }));
  try {
    const run = await runAgainst(`${elsewhere.url}/api`, 't', 'missing-1').done;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `jobhooks-dbt: job.run.started of run missing-1 was not posted: Account 1 (JOBHOOKS_ACCOUNT_ID) was not found at ${elsewhere.url}/api (HTTP 404: Not Found).\n`,
    );
  } finally {
    await elsewhere.close();
  }
});

describe('a server that answers with a web page', () => {
  let page: Receiver;
  beforeAll(async () => {
    page = await startReceiver(answer(202, '<html><body>Welcome</body></html>', { 'content-type': 'text/html' }));
  });
  afterAll(() => page.close());

  test('the sentence asks whether the host URL is right, and ends with its question mark', async () => {
    const run = await runAgainst(`${page.url}/api`, 't', 'page-1').done;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `jobhooks-dbt: job.run.started of run page-1 was not posted: The server at ${page.url}/api did not answer as the webhooks API does: is the host URL right?\n`,
    );
  });
});
