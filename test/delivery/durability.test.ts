// Crash safety of the pipeline, with the service as a real process: kill -9 in the middle of a burst loses no
// delivery, and SIGTERM lets the attempt in flight finish and be recorded before exiting 0.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { ADMIN_TOKEN } from '../support/harness';
import { runOf } from '../support/events';
import { type Receiver, startReceiver } from '../support/receiver';
import { type ServiceProcess, startServiceProcess, stopServiceProcesses } from '../support/service-process';
import { isGenuine } from '../support/signature';
import { waitFor } from '../support/wait';

const EVENTS = 5_000;
const SUBSCRIBERS = 3;
const KILL_AFTER_ACCEPTED = 2_000;
const POST_CONCURRENCY = 32;

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

const headers = { authorization: `Token ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

async function createWebhook(baseUrl: string, url: string): Promise<{ id: string; hmac_secret: string }> {
  const response = await request(`${baseUrl}/v3/accounts/1/webhooks/subscriptions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: url, client_url: url, event_types: ['job.run.completed'], job_ids: [] }),
  });
  const body = (await response.body.json()) as { data: { id: string; hmac_secret: string } };
  if (response.statusCode !== 201) throw new Error(`create failed: ${JSON.stringify(body)}`);
  return body.data;
}

/**
 * Posts the events of `runIds` with bounded concurrency, like a scheduler's client: resolves with the runs
 * that were accepted (202). Requests that fail because the process died are simply not in the result.
 */
async function postEvents(
  baseUrl: string,
  runIds: string[],
  onAccepted: (accepted: number) => void,
): Promise<Set<string>> {
  const origin = new URL(baseUrl).origin;
  const pool = new Pool(origin, { connections: POST_CONCURRENCY });
  const accepted = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < runIds.length) {
      const runId = runIds[next++]!;
      try {
        const response = await pool.request({
          path: '/api/v3/accounts/1/webhooks/events',
          method: 'POST',
          headers,
          body: JSON.stringify({ event_type: 'job.run.completed', run: runOf('job.run.completed', { runId }) }),
        });
        await response.body.dump();
        if (response.statusCode === 202) {
          accepted.add(runId);
          onAccepted(accepted.size);
        }
      } catch {
        return; // the service is gone: stop this worker
      }
    }
  };
  await Promise.all(Array.from({ length: POST_CONCURRENCY }, worker));
  await pool.destroy();
  return accepted;
}

function deliveredRuns(receiver: Receiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.requests) {
    const runId = (JSON.parse(r.body.toString('utf8')) as { data: { runId: string } }).data.runId;
    counts.set(runId, (counts.get(runId) ?? 0) + 1);
  }
  return counts;
}

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
  for (const receiver of receivers) hooks.push(await createWebhook(service.baseUrl, `${receiver.url}/hook`));

  const runIds = Array.from({ length: EVENTS }, (_, i) => `run-${i + 1}`);
  const crashing = service;
  let killed: Promise<number | null> | null = null;
  const acceptedBeforeKill = await postEvents(crashing.baseUrl, runIds, (count) => {
    if (count === KILL_AFTER_ACCEPTED) killed ??= crashing.signal('SIGKILL');
  });
  expect(await killed).toBeNull();
  const deliveredBeforeKill = receivers.reduce((sum, r) => sum + r.requests.length, 0);

  // Restart on the same database, and re-post every event whose acceptance was not confirmed, as a client would.
  service = await startServiceProcess(env());
  const resent = runIds.filter((runId) => !acceptedBeforeKill.has(runId));
  const acceptedAfter = await postEvents(service.baseUrl, resent, () => undefined);
  expect(acceptedAfter.size).toBe(resent.length);

  await waitFor(
    () => receivers.every((r) => deliveredRuns(r).size === EVENTS),
    'every event at every subscriber',
    90_000,
  );
  let duplicates = 0;
  receivers.forEach((receiver, i) => {
    const runs = deliveredRuns(receiver);
    expect([...runs.keys()].sort()).toEqual([...runIds].sort());
    duplicates += receiver.requests.length - runs.size;
    for (const r of receiver.requests)
      expect(isGenuine(hooks[i]!.hmac_secret, r.body, r.headers.authorization)).toBe(true);
  });
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
  await createWebhook(service.baseUrl, `${receiver.url}/slow`);
  const response = await request(`${service.baseUrl}/v3/accounts/1/webhooks/events`, {
    method: 'POST',
    headers,
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
