// Crash safety of the pipeline, with the service as a real process: kill -9 in the middle of a burst loses no
// delivery, and SIGTERM lets the attempt in flight finish and be recorded before exiting 0.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { ADMIN_TOKEN } from '../support/harness';
import { ADMIN_HEADERS, createWebhookAt, deliveredRuns, expectEveryPairDelivered, postEvents } from '../support/burst';
import { runOf } from '../support/events';
import { type Receiver, startReceiver } from '../support/receiver';
import { type ServiceProcess, startServiceProcess, stopServiceProcesses } from '../support/service-process';
import { waitFor } from '../support/wait';

const EVENTS = 5_000;
const SUBSCRIBERS = 3;
const KILL_AFTER_ACCEPTED = 2_000;

let dir: string;
let receivers: Receiver[] = [];
let service: ServiceProcess | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-durability-'));
});
afterEach(async () => {
  await stopServiceProcesses();
  service = null;
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({
  JOBHOOKS_DB: join(dir, 'jobhooks.db'),
  JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1',
  JOBHOOKS_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
  JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
  JOBHOOKS_RATE_LIMIT_PER_MINUTE: '1000000',
  // The shortest lease allowed, so deliveries the killed process had claimed come due again soon.
  JOBHOOKS_DELIVERY_LEASE_SECONDS: '15',
  JOBHOOKS_RETRY_SCHEDULE: '1,1,1,1,1',
});

test(`kill -9 during a burst of ${EVENTS} events to ${SUBSCRIBERS} subscribers loses no delivery`, async () => {
  receivers = await Promise.all(
    Array.from({ length: SUBSCRIBERS }, (_, i) =>
      // One slow subscriber keeps deliveries in flight at the moment of the kill.
      startReceiver((_req, res) =>
        i === 0 ? setTimeout(() => res.writeHead(200).end(), 20) : res.writeHead(200).end(),
      ),
    ),
  );
  service = await startServiceProcess(env());
  const hooks: Array<{ id: string; hmac_secret: string }> = [];
  for (const receiver of receivers) hooks.push(await createWebhookAt(service.baseUrl, `${receiver.url}/hook`));

  const runIds = Array.from({ length: EVENTS }, (_, i) => `run-${i + 1}`);
  const crashing = service;
  // A holder the callback fills: the kill happened during the burst, and the process is gone.
  const kill: { exited: Promise<number | null> | null } = { exited: null };
  const acceptedBeforeKill = await postEvents([crashing.baseUrl], runIds, (count) => {
    if (count === KILL_AFTER_ACCEPTED) kill.exited ??= crashing.signal('SIGKILL');
  });
  expect(kill.exited).not.toBeNull();
  expect(await kill.exited).toBeNull();
  const deliveredBeforeKill = receivers.reduce((sum, r) => sum + r.requests.length, 0);

  // Restart on the same database, and re-post every event whose acceptance was not confirmed, as a client would.
  service = await startServiceProcess(env());
  const resent = runIds.filter((runId) => !acceptedBeforeKill.has(runId));
  const acceptedAfter = await postEvents([service.baseUrl], resent);
  expect(acceptedAfter.size).toBe(resent.length);

  await waitFor(
    () => receivers.every((r) => deliveredRuns(r).size === EVENTS),
    'every event at every subscriber',
    90_000,
  );
  const duplicates = expectEveryPairDelivered(receivers, runIds, hooks);
  process.stdout.write(
    `durability: ${acceptedBeforeKill.size} events accepted and ${deliveredBeforeKill} deliveries made before kill -9; ` +
      `${EVENTS * SUBSCRIBERS} event x subscriber pairs all delivered after restart, ${duplicates} duplicate deliveries (at-least-once)\n`,
  );
  expect(await service.signal('SIGTERM')).toBe(0);
}, 150_000);

test('SIGTERM lets the attempt in flight finish, records it, and exits 0', async () => {
  let release: (() => void) | null = null;
  const receiver = await startReceiver((_req, res) => {
    release = () => res.writeHead(200).end('ok');
  });
  receivers = [receiver];
  service = await startServiceProcess(env());
  await createWebhookAt(service.baseUrl, `${receiver.url}/slow`);
  const response = await request(`${service.baseUrl}/v3/accounts/1/webhooks/events`, {
    method: 'POST',
    headers: ADMIN_HEADERS,
    body: JSON.stringify({ event_type: 'job.run.completed', run: runOf('job.run.completed') }),
  });
  expect(response.statusCode).toBe(202);
  await response.body.dump();
  await waitFor(() => release !== null, 'the delivery to reach the receiver');

  const exit = service.signal('SIGTERM');
  let exited = false;
  void exit.then(() => (exited = true));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(exited).toBe(false);
  release!();
  expect(await exit).toBe(0);

  const db = new Database(join(dir, 'jobhooks.db'), { readonly: true });
  try {
    expect(db.prepare('SELECT state, attempts, lease_owner FROM deliveries').all()).toEqual([
      { state: 'succeeded', attempts: 1, lease_owner: null },
    ]);
    expect(db.prepare('SELECT status_code, success FROM delivery_attempts').all()).toEqual([
      { status_code: '200', success: 1 },
    ]);
  } finally {
    db.close();
  }
}, 30_000);
