// `jobhooks start` as a process: first start on an empty database prints a working admin token once; SIGTERM exits 0.
import { execFile, spawn } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { startServiceProcess, stopServiceProcesses } from './support/service-process';
import { waitFor } from './support/wait';

const run = promisify(execFile);
const BIN = resolve(__dirname, '..', 'service', 'bin', 'jobhooks.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-start-'));
});
afterEach(async () => {
  await stopServiceProcesses();
  rmSync(dir, { recursive: true, force: true });
});

const start = () => startServiceProcess({ JOBHOOKS_DB: join(dir, 'jobhooks.db') });

test('the first start creates account 1, prints an Account Admin token once and serves the web UI; SIGTERM exits 0', async () => {
  const first = await start();
  const token = /^ {2}(jhk_\S+)$/m.exec(first.output())?.[1];
  expect(token).toBeDefined();
  expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
  const response = await request(`${first.baseUrl}/v3/accounts/1/webhooks/subscriptions`, {
    headers: { authorization: `Token ${token}` },
  });
  expect(response.statusCode).toBe(200);
  await response.body.text();
  // The built service (dist/) finds the built web UI and serves it at /.
  const page = await request(first.baseUrl.replace(/\/api$/, '/'));
  expect(page.statusCode).toBe(200);
  expect(await page.body.text()).toContain('<script type="module" src="/ui/app.js">');
  expect(await first.signal('SIGTERM')).toBe(0);

  const second = await start();
  expect(second.output()).not.toMatch(/jhk_/);
  expect(await second.signal('SIGTERM')).toBe(0);
});

test('SIGTERM says in the log what the shutdown waits for, and for how long at most', async () => {
  const service = await startServiceProcess({ JOBHOOKS_DB: join(dir, 'jobhooks.db'), LOG_LEVEL: 'info' });
  expect(await service.signal('SIGTERM')).toBe(0);
  const line = service
    .stdout()
    .split('\n')
    .find((text) => text.includes('shutting down'));
  expect(JSON.parse(line!)).toMatchObject({
    signal: 'SIGTERM',
    deliveriesInFlight: 0,
    graceSeconds: 13,
    msg: 'shutting down: waiting up to 13 s for 0 deliveries in flight to be answered and recorded',
  });
});

test('a service a test left running is killed by stopServiceProcesses, so jest does not wait on it', async () => {
  const left = await start();
  expect(left.child.exitCode).toBeNull();
  await stopServiceProcesses();
  expect(left.child.signalCode).toBe('SIGKILL');
});

describe('start-up mistakes get one sentence naming the setting, and exit 1', () => {
  const startFailing = (env: Record<string, string>) =>
    run(process.execPath, [BIN, 'start'], {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', JOBHOOKS_DB: join(dir, 'jobhooks.db'), ...env },
      timeout: 20_000,
      // A start stuck in a synchronous loop never runs its SIGTERM handler, and would spin on after the test.
      killSignal: 'SIGKILL',
    }).then(
      () => {
        throw new Error('the service started');
      },
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  const oneSentence = (stderr: string) => {
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/^\s+at /m);
  };

  test('a busy port: nothing is created, and the next start on a free port prints the first token', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const failed = await startFailing({ PORT: String(port) });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toBe(
        `jobhooks: Port ${port} on 127.0.0.1 is already in use: stop the other process, or set PORT to a free port (PORT=0 picks one).\n`,
      );
      expect(failed.stdout).not.toMatch(/jhk_/);
    } finally {
      busy.close();
    }
    const next = await start();
    expect(next.output()).toMatch(/^ {2}jhk_\S+$/m);
  });

  test('a second service on the same SQLite file is refused before it opens it; the first keeps serving', async () => {
    const first = await start();
    const failed = await startFailing({});
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      `jobhooks: Another jobhooks service is serving ${join(dir, 'jobhooks.db')} (pid ${first.child.pid}): a SQLite database takes one service. Stop that one first, or use PostgreSQL (JOBHOOKS_DATABASE_URL) to run several instances.\n`,
    );
    // Its mark is the first one's still: commands that must not run beside a service still see it.
    expect(readFileSync(join(dir, 'jobhooks.db.pid'), 'utf8')).toBe(`${first.child.pid}\n`);
    const ready = await request(first.baseUrl.replace(/\/api$/, '/readyz'));
    expect(ready.statusCode).toBe(200);
    await ready.body.text();
    // The mark gone (a pid file deleted by hand), the lock still refuses.
    rmSync(join(dir, 'jobhooks.db.pid'));
    expect((await startFailing({})).stderr).toMatch(/^jobhooks: Another jobhooks service is serving \S+: a SQLite/);
    // A service killed outright leaves no lock behind: the next one starts.
    expect(await first.signal('SIGKILL')).toBeNull();
    const next = await start();
    expect(await next.signal('SIGTERM')).toBe(0);
  });

  describe('a PostgreSQL server that takes the connection and never answers', () => {
    let silent: ReturnType<typeof createServer>;
    let url: string;
    let accepted: Socket[] = [];
    beforeEach(async () => {
      accepted = [];
      silent = createServer((socket) => void accepted.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      url = `postgres://app:s3cret@127.0.0.1:${(silent.address() as AddressInfo).port}/jobhooks`;
    });
    afterEach(async () => {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });
    const onPostgres = () => ({ JOBHOOKS_DATABASE_URL: url, JOBHOOKS_SECRET_KEY: 'a'.repeat(64) });

    test('fails the start within the connection time limit, in one sentence without the password', async () => {
      const failed = await startFailing(onPostgres());
      expect(failed.code).toBe(1);
      expect(failed.stderr).toBe(
        `jobhooks: PostgreSQL at 127.0.0.1:${new URL(url).port}/jobhooks did not answer within 10 s: check JOBHOOKS_DATABASE_URL, and that the server runs and takes connections.\n`,
      );
    });

    test('a SIGTERM while it waits ends the start at once, saying so', async () => {
      const child = spawn(process.execPath, [BIN, 'start'], {
        env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...onPostgres() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // Once it is waiting for the server's answer.
      await waitFor(() => accepted.length > 0, 'the connection to the silent server');
      const signalled = Date.now();
      child.kill('SIGTERM');
      expect(await exited).toBe(1);
      expect(Date.now() - signalled).toBeLessThan(5_000);
      expect(stderr).toBe('jobhooks: stopped by SIGTERM while starting.\n');
    });
  });

  test('a live process in the pid file (a service of a version before the lock) is refused too, naming the file', async () => {
    writeFileSync(join(dir, 'jobhooks.db.pid'), `${process.pid}\n`);
    const failed = await startFailing({});
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      `jobhooks: Another jobhooks process (pid ${process.pid}, in ${join(dir, 'jobhooks.db.pid')}) is serving ${join(dir, 'jobhooks.db')}: stop it first. If no jobhooks runs there, delete that file.\n`,
    );
  });

  test('a HOST that is not an address of this machine', async () => {
    const failed = await startFailing({ HOST: '192.0.2.1' });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      'jobhooks: HOST "192.0.2.1" is not an address of this machine (EADDRNOTAVAIL): set HOST to one, such as 127.0.0.1 or 0.0.0.0.\n',
    );
  });

  test('a HOST name that does not resolve', async () => {
    const failed = await startFailing({ HOST: 'no-such-host.invalid' });
    expect(failed.code).toBe(1);
    oneSentence(failed.stderr);
    expect(failed.stderr).toMatch(
      /^jobhooks: HOST "no-such-host\.invalid" is not an address of this machine \((ENOTFOUND|EAI_AGAIN|EAI_NONAME)\): set HOST to one, such as 127\.0\.0\.1 or 0\.0\.0\.0\.\n$/,
    );
  });

  test('a key file that cannot be read is named, not JOBHOOKS_DB', async () => {
    mkdirSync(join(dir, 'secret.key'));
    const failed = await startFailing({});
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      `jobhooks: The key file ${join(dir, 'secret.key')} cannot be read (EISDIR): fix it, or set JOBHOOKS_SECRET_KEY.\n`,
    );
  });

  test('a JOBHOOKS_DB that is not a database', async () => {
    const notADatabase = join(dir, 'notes.txt');
    writeFileSync(notADatabase, 'this is not a database, but a long enough text file to be read as one. '.repeat(100));
    const failed = await startFailing({ JOBHOOKS_DB: notADatabase });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      `jobhooks: JOBHOOKS_DB names ${notADatabase}, which is not a SQLite database: point JOBHOOKS_DB at the jobhooks database, or at a new file.\n`,
    );
  });

  test('a JOBHOOKS_DB that cannot be created', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const failed = await startFailing({ JOBHOOKS_DB: join(file, 'jobhooks.db') });
    expect(failed.code).toBe(1);
    oneSentence(failed.stderr);
    expect(failed.stderr).toContain(
      `JOBHOOKS_DB names ${join(file, 'jobhooks.db')}, which cannot be created or opened (EEXIST): set JOBHOOKS_DB to a file in a writable folder.`,
    );
  });

  test('a JOBHOOKS_DB in a folder that cannot be made, under /proc, fails at once instead of hanging', async () => {
    const failed = await startFailing({ JOBHOOKS_DB: '/proc/jobhooks/jobhooks.db' });
    expect(failed.code).toBe(1);
    oneSentence(failed.stderr);
    expect(failed.stderr).toContain(
      'JOBHOOKS_DB names /proc/jobhooks/jobhooks.db, which cannot be created or opened (ENOENT)',
    );
  });

  test('a corrupt database names its file', async () => {
    const first = await start();
    expect(await first.signal('SIGTERM')).toBe(0);
    const path = join(dir, 'jobhooks.db');
    // Keep the header page, overwrite every page after it: the tables' pages are garbage from then on.
    const size = statSync(path).size;
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
    closeSync(fd);
    const failed = await startFailing({});
    expect(failed.code).toBe(1);
    oneSentence(failed.stderr);
    expect(failed.stderr).toMatch(
      new RegExp(
        `^jobhooks: The database ${path} \\(JOBHOOKS_DB\\) is corrupt \\(.+\\): restore it from a backup\\.\n$`,
      ),
    );
  });

  test('a later start, with accounts and no token to show, says how to make one', async () => {
    const first = await start();
    expect(await first.signal('SIGTERM')).toBe(0);
    const second = await start();
    expect(second.output()).toContain(
      'API tokens are shown only when made. To make one (npx jobhooks account list shows the account ids):',
    );
    expect(second.output()).toContain(
      `  JOBHOOKS_DB=${join(dir, 'jobhooks.db')} npx jobhooks token create --account <id> --permission "Account Admin"`,
    );
  });
});

test('a start with JOBHOOKS_BOOTSTRAP_* names the account its token belongs to, and never prints the token', async () => {
  const token = 'bootstrap-token-for-the-start-text';
  const started = await startServiceProcess({
    JOBHOOKS_DB: join(dir, 'bootstrap.db'),
    JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '7',
    JOBHOOKS_BOOTSTRAP_TOKEN: token,
  });
  const list = `${started.baseUrl}/v3/accounts/7/webhooks/subscriptions`;
  expect(started.output()).toContain(
    'JOBHOOKS_BOOTSTRAP_TOKEN is an Account Admin API token of account 7.\n' +
      `Try: curl -H "Authorization: Token $JOBHOOKS_BOOTSTRAP_TOKEN" ${list}\n`,
  );
  expect(started.output()).not.toContain(token);
  expect(started.output()).not.toContain('API tokens are shown only when made');
  expect((await request(list, { headers: { authorization: `Token ${token}` } })).statusCode).toBe(200);
  expect(await started.signal('SIGTERM')).toBe(0);
});

describe('what a person reads at start', () => {
  const readyz = async (baseUrl: string) => {
    const response = await request(baseUrl.replace(/\/api$/, '/readyz'));
    return response.body.json();
  };

  test('with JOBHOOKS_ALLOW_PRIVATE_URLS on, the start-up text says so once, and /readyz says so while it runs', async () => {
    const started = await startServiceProcess({
      JOBHOOKS_DB: join(dir, 'jobhooks.db'),
      JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
    });
    const warning =
      'Warning: JOBHOOKS_ALLOW_PRIVATE_URLS is on: webhooks may point at loopback, private and link-local addresses, which is meant for local development and tests, not production.';
    expect(
      started
        .output()
        .split('\n')
        .filter((line) => line.includes('JOBHOOKS_ALLOW_PRIVATE_URLS')),
    ).toEqual([warning]);
    expect(await readyz(started.baseUrl)).toEqual({ status: 'ready', warnings: [warning.replace(/^Warning: /, '')] });
    expect(await started.signal('SIGTERM')).toBe(0);
  });

  test('with every protection on, neither the start-up text nor /readyz has a warning', async () => {
    const started = await startServiceProcess({
      JOBHOOKS_DB: join(dir, 'jobhooks.db'),
      JOBHOOKS_ALLOW_PRIVATE_URLS: '',
    });
    expect(started.output()).not.toMatch(/warning|JOBHOOKS_ALLOW_PRIVATE_URLS/i);
    expect(await readyz(started.baseUrl)).toEqual({ status: 'ready' });
    expect(await started.signal('SIGTERM')).toBe(0);
  });

  test('the start-up text is one block before any JSON log line, and the log lines are all JSON', async () => {
    // At info level Fastify logs its "Server listening" line as the port opens, before the text is written.
    const started = await startServiceProcess({ JOBHOOKS_DB: join(dir, 'jobhooks.db'), LOG_LEVEL: 'info' });
    await request(started.baseUrl.replace(/\/api$/, '/healthz')).then((response) => response.body.text());
    await waitFor(() => /"msg":"request completed"/.test(started.stdout()), 'the request to be logged');
    const lines = started.stdout().trimEnd().split('\n');
    const textEnd = lines.findIndex((line) => line.startsWith('Database: '));
    expect(lines[0]).toMatch(/^jobhooks is listening on http:\/\/127\.0\.0\.1:\d+$/);
    const text = lines.slice(0, textEnd + 1);
    const logs = lines.slice(textEnd + 1);
    expect(text.filter((line) => line.startsWith('{'))).toEqual([]);
    expect(logs.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Server listening at /), 'request completed']),
    );
    expect(await started.signal('SIGTERM')).toBe(0);
  });
});
