// What the README shows is true of a fresh clone: it stays a short page, every file it links to is in the
// repository, and its first signed delivery works as written: the webhook it creates, the example receiver run
// as it says, and the event it posts reach the receiver, which verifies the signature and prints what it says.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Harness, startHarness, webhookPath, webhooksPath } from './support/harness';
import { eventsPath } from './support/events';
import { closedPortUrl } from './support/receiver';
import { waitFor } from './support/wait';

const ROOT = resolve(__dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The README is the first screen of the project: what it is, how to start, where to go next. */
const MOST_LINES = 300;

test(`the README is a short page: at most ${MOST_LINES} lines`, () => {
  expect(README.split('\n').length).toBeLessThanOrEqual(MOST_LINES);
});

test('every file the README links to or shows is tracked by git', () => {
  const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n'));
  const targets = [...README.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z]+:/.test(target));
  expect(targets.length).toBeGreaterThan(0);
  for (const target of targets) expect(tracked.has(target) ? target : `${target} (not in git)`).toBe(target);
});

describe('the first signed delivery, as the README writes it', () => {
  let h: Harness;
  let receiver: ChildProcess | null = null;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    receiver?.kill();
    await h.close();
  });

  const shown = (pattern: RegExp, what: string): string => {
    const found = pattern.exec(README)?.[1];
    if (found === undefined) throw new Error(`the README shows no ${what}`);
    return found;
  };

  test('the service it starts allows loopback receivers, and the example receiver verifies and prints the event', async () => {
    expect(README).toContain('JOBHOOKS_ALLOW_PRIVATE_URLS=1 npm start');
    const create = JSON.parse(shown(/-d '(\{"name":"Local receiver"[^']*\})'/, 'webhook create')) as {
      client_url: string;
    };
    const event = shown(/-d '(\{"event_type":[^']*\})'/s, 'job-run event').replace(/\n\s*/g, '');
    const receiverLine = shown(/^(JOBHOOKS_HMAC_SECRET=\$SECRET PORT=9000 npx tsx \S+) &$/m, 'receiver command');
    const printed = shown(/The receiver prints `([^`]+)`/, 'receiver output');
    expect(create.client_url).toBe('http://127.0.0.1:9000/hook');

    // Port 9000 may be taken on this machine: the same flow on a free port.
    const port = Number(new URL(await closedPortUrl()).port);
    const created = await h.call('POST', webhooksPath(), {
      body: { ...create, client_url: `http://127.0.0.1:${port}/hook` },
    });
    expect(created.statusCode).toBe(201);
    const { id, hmac_secret: secret } = created.json().data as { id: string; hmac_secret: string };

    const [, script] = /npx tsx (\S+)$/.exec(receiverLine)!;
    let output = '';
    receiver = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), [script!], {
      cwd: ROOT,
      env: { ...process.env, JOBHOOKS_HMAC_SECRET: secret, PORT: String(port) },
    });
    receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => output.includes('receiver listening'), 'the example receiver to listen', 20_000);

    const ingested = await h.call('POST', eventsPath(), {
      rawBody: event,
      headers: { 'content-type': 'application/json' },
    });
    expect(ingested.statusCode).toBe(202);
    expect(ingested.json().data).toMatchObject({ deliveries: 1, duplicate: false });
    await waitFor(() => output.includes(printed), `the receiver to print "${printed}"`);

    // The receiver has the event before its result is written.
    const log = async () =>
      (await h.call('GET', `${webhookPath(id)}/deliveries`)).json().data as Array<{ success: boolean }>;
    await waitFor(async () => (await log()).length > 0, 'the attempt in the delivery log');
    expect((await log()).map((row) => row.success)).toEqual([true]);
  });
});
