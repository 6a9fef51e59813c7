// A burst of job-run events posted over real HTTP as a scheduler's client would, and what receivers got of it:
// for the crash and multi-instance tests, which count every (event, webhook) pair.
import { Pool, request } from 'undici';
import { ADMIN_TOKEN } from './harness';
import { runOf } from './events';
import type { Receiver } from './receiver';
import { isGenuine } from './signature';

export const ADMIN_HEADERS = { authorization: `Token ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

/** Creates a webhook of account 1 for job.run.completed at `url` through the API of `baseUrl` (ending in /api). */
export async function createWebhookAt(baseUrl: string, url: string): Promise<{ id: string; hmac_secret: string }> {
  const response = await request(`${baseUrl}/v3/accounts/1/webhooks/subscriptions`, {
    method: 'POST',
    headers: ADMIN_HEADERS,
    body: JSON.stringify({ name: url, client_url: url, event_types: ['job.run.completed'], job_ids: [] }),
  });
  const body = (await response.body.json()) as { data: { id: string; hmac_secret: string } };
  if (response.statusCode !== 201) throw new Error(`create failed: ${JSON.stringify(body)}`);
  return body.data;
}

/**
 * Posts a job.run.completed event for each of `runIds`, `concurrency` at a time, spreading them over the
 * `baseUrls` in turn (one instance or several); resolves with the runs that were accepted (202). Requests that
 * fail because their instance died are not in the result, and that instance gets no more.
 */
export async function postEvents(
  baseUrls: readonly string[],
  runIds: readonly string[],
  onAccepted: (accepted: number) => void = () => undefined,
  concurrency = 32,
): Promise<Set<string>> {
  const pools = baseUrls.map((baseUrl) => new Pool(new URL(baseUrl).origin, { connections: concurrency }));
  const dead = new Set<number>();
  const accepted = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < runIds.length && dead.size < pools.length) {
      const index = next;
      const runId = runIds[next++]!;
      const target = index % pools.length;
      if (dead.has(target)) continue;
      try {
        const response = await pools[target]!.request({
          path: '/api/v3/accounts/1/webhooks/events',
          method: 'POST',
          headers: ADMIN_HEADERS,
          body: JSON.stringify({ event_type: 'job.run.completed', run: runOf('job.run.completed', { runId }) }),
        });
        await response.body.dump();
        if (response.statusCode === 202) {
          accepted.add(runId);
          onAccepted(accepted.size);
        }
      } catch {
        dead.add(target); // that instance is gone
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await Promise.all(pools.map((pool) => pool.destroy()));
  return accepted;
}

/** How many times the receiver got each run. */
export function deliveredRuns(receiver: Receiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.requests) {
    const runId = (JSON.parse(r.body.toString('utf8')) as { data: { runId: string } }).data.runId;
    counts.set(runId, (counts.get(runId) ?? 0) + 1);
  }
  return counts;
}

/**
 * Checks that each receiver got every run of `runIds`, each request signed with its webhook's secret (receiver i
 * belongs to `hooks[i]`); resolves with how many requests were duplicates (at-least-once: only across a crash).
 */
export function expectEveryPairDelivered(
  receivers: readonly Receiver[],
  runIds: readonly string[],
  hooks: ReadonlyArray<{ hmac_secret: string }>,
): number {
  let duplicates = 0;
  receivers.forEach((receiver, i) => {
    const runs = deliveredRuns(receiver);
    expect([...runs.keys()].sort()).toEqual([...runIds].sort());
    duplicates += receiver.requests.length - runs.size;
    for (const r of receiver.requests)
      expect(isGenuine(hooks[i]!.hmac_secret, r.body, r.headers.authorization)).toBe(true);
  });
  return duplicates;
}
