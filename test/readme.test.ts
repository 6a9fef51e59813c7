// What the README shows is true of a fresh clone: every file it links to is in the repository, and its
// quick-start webhook does not receive the sample event it posts later (nothing goes to a placeholder host).
// (The attempt numbers it gives a receiver are checked where they are sent: test/delivery.)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Harness, startHarness, webhooksPath } from './support/harness';
import { eventsPath } from './support/events';

const ROOT = resolve(__dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

test('every file the README links to or shows is tracked by git', () => {
  const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n'));
  const targets = [...README.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z]+:/.test(target));
  expect(targets.length).toBeGreaterThan(0);
  for (const target of targets) expect(tracked.has(target) ? target : `${target} (not in git)`).toBe(target);
});

describe("the quick start's webhook and the sample event", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  test('the webhook the quick start creates gets nothing from the sample event of "Taking in job-run events"', async () => {
    const create = /-d '(\{"name":"Notify"[^']*\})'/.exec(README)?.[1];
    const event = /-d '(\{"event_type":[^']*\})'/s.exec(README)?.[1];
    expect(create).toBeDefined();
    expect(event).toBeDefined();
    // The README's fields, but a loopback endpoint: were the webhook to match after all, nothing leaves the machine.
    const body = { ...(JSON.parse(create!) as Record<string, unknown>), client_url: 'http://127.0.0.1:9/quick-start' };
    expect((await h.call('POST', webhooksPath(), { body })).statusCode).toBe(201);
    const ingested = await h.call('POST', eventsPath(), {
      rawBody: event!.replace(/\n\s*/g, ''),
      headers: { 'content-type': 'application/json' },
    });
    expect(ingested.statusCode).toBe(202);
    expect(ingested.json().data).toMatchObject({ deliveries: 0 });
  });
});
