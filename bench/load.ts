// What every scenario of the bench does to the service: creates webhooks that point at a receiver, posts
// events (in parallel loops, or at a steady rate, noting when each was accepted), and waits for the result.
import type { Pool } from 'undici';
import type { WebhooksClient } from '@jobhooks/client';
import type { BenchReceiver } from './receiver';
import { runOf } from '../test/support/events';

/** The admin token every service process of the bench is bootstrapped with. */
export const TOKEN = 'bench-admin-token-0123456789abcdef';

/** The one event type the bench posts, and every webhook it creates to receive something subscribes to. */
export const EVENT_TYPE = 'job.run.completed';

/** A completed run, as the tests' fixture describes one, with its own run id. */
function runEvent(runId: number) {
  return { event_type: EVENT_TYPE, run: runOf(EVENT_TYPE, { runId: String(runId) }) };
}

export async function waitUntil(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * Run ids of the warm-up's events (bench/run.ts, bench/postgres-scale-out.ts), apart from those of a measured run
 * (1...) and of the latency run (1,000,000...).
 */
export const WARM_UP_FIRST_RUN_ID = 2_000_000;

/**
 * Posts one event per run id, spread over `pools` in turn (one per service instance) with `concurrency` loops in
 * all, and waits until the receiver holds every delivery of them (`webhooks` per event); their rate, end to end.
 */
export async function deliverEvents(
  pools: readonly Pool[],
  receiver: BenchReceiver,
  runIds: readonly number[],
  webhooks: number,
  concurrency: number,
): Promise<number> {
  const before = receiver.delivered();
  const expected = runIds.length * webhooks;
  const started = performance.now();
  await Promise.all(
    pools.map((pool, p) =>
      ingest(
        pool,
        '/api/v3/accounts/1/webhooks/events',
        runIds.filter((_, i) => i % pools.length === p),
        Math.ceil(concurrency / pools.length),
      ),
    ),
  );
  await waitUntil(() => receiver.delivered() - before >= expected, `${expected} deliveries`, 600_000);
  return expected / ((performance.now() - started) / 1000);
}

/** Posts events with the given runIds through `concurrency` parallel loops; notes each acceptance time. */
export async function ingest(
  pool: Pool,
  path: string,
  runIds: number[],
  concurrency: number,
  accepted?: Map<string, number>,
): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < runIds.length) {
      const runId = runIds[next++]!;
      const response = await pool.request({
        method: 'POST',
        path,
        headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(runEvent(runId)),
      });
      await response.body.text();
      if (response.statusCode !== 202) throw new Error(`ingestion answered ${response.statusCode}`);
      accepted?.set(String(runId), performance.now());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}

/**
 * Posts one event per runId at `perSecond`, each on its own schedule rather than after the previous answer,
 * so a slow answer does not slow the rate; resolves once all are accepted, with each acceptance time by run id.
 */
export async function ingestAtRate(
  pool: Pool,
  path: string,
  runIds: number[],
  perSecond: number,
): Promise<Map<string, number>> {
  const accepted = new Map<string, number>();
  const started = performance.now();
  const sends: Array<Promise<void>> = [];
  for (const [i, runId] of runIds.entries()) {
    const wait = started + (i * 1000) / perSecond - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    sends.push(ingest(pool, path, [runId], 1, accepted));
  }
  await Promise.all(sends);
  return accepted;
}

/** Webhooks on `receiver` at /prefix/0, /prefix/1...; the receiver learns each secret to verify signatures. */
export async function createWebhooks(
  client: WebhooksClient,
  receiver: BenchReceiver,
  count: number,
  prefix: string,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const path = `/${prefix}/${i}`;
    const hook = await client.create({
      name: `${prefix} ${i}`,
      client_url: `${receiver.url}${path}`,
      event_types: [EVENT_TYPE],
    });
    receiver.secrets.set(path, hook.hmac_secret);
    ids.push(hook.id);
  }
  return ids;
}

/** Receipt minus acceptance for each accepted run the receiver has had, sorted; runs not received are left out. */
export function latenciesOf(accepted: ReadonlyMap<string, number>, arrivals: ReadonlyMap<string, number>): number[] {
  return [...accepted]
    .filter(([runId]) => arrivals.has(runId))
    .map(([runId, at]) => Math.max(0, arrivals.get(runId)! - at))
    .sort((a, b) => a - b);
}

/** A figure over its ceiling (or baseline), to three decimals: the form every ratio of the bench takes. */
export function ratio(measured: number, ceiling: number): number {
  return Number((measured / ceiling).toFixed(3));
}

/** The middle value, or the mean of the two middle values of an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The p-th percentile of sorted latencies (NaN when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
