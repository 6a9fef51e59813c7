// `npm run bench [-- --quick]`: measures the service against ceilings measured on the same machine in the
// same run, prints a table and, as its last line, one JSON object with every figure and ratio.
//
// Measured so far (issue 7 is in progress): delivery throughput end to end and its ceiling, and latency from
// ingestion accepted to receiver hit at a steady rate. API throughput and the backlog cost come next; they
// are absent from the output rather than guessed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { createWebhooksClient, type WebhooksClient } from '../provider/client';
import { startBenchReceiver, type BenchReceiver, type SignedRequest } from './receiver';
import { runOf } from '../test/support/events';
import { startServiceProcess, type ServiceProcess } from '../test/support/service-process';

const QUICK = process.argv.includes('--quick');
const SCALE = QUICK
  ? { subscribers: 10, events: 500, latencyRate: 1000, latencySeconds: 3 }
  : { subscribers: 10, events: 5000, latencyRate: 1000, latencySeconds: 10 };
const INGEST_CONCURRENCY = 64;
/** The dispatcher's default total concurrency; the ceiling uses the same. */
const DELIVERY_CONCURRENCY = 256;
const TOKEN = 'bench-admin-token-0123456789abcdef';

interface Figures {
  [name: string]: number;
}

/** A completed run, as the tests' fixture describes one, with its own run id. */
function runEvent(runId: number) {
  return { event_type: 'job.run.completed', run: runOf('job.run.completed', { runId: String(runId) }) };
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Posts events with runIds from..to-1 through `concurrency` parallel loops; returns each acceptance time. */
async function ingest(pool: Pool, path: string, runIds: number[], concurrency: number, accepted?: Map<string, number>): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < runIds.length) {
      const runId = runIds[next++]!;
      const response = await pool.request({
        method: 'POST', path, headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(runEvent(runId)),
      });
      await response.body.text();
      if (response.statusCode !== 202) throw new Error(`ingestion answered ${response.statusCode}`);
      accepted?.set(String(runId), performance.now());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}

async function createSubscribers(client: WebhooksClient, receiver: BenchReceiver, count: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const path = `/${prefix}/${i}`;
    const hook = await client.create({ name: `${prefix} ${i}`, client_url: `${receiver.url}${path}`, event_types: ['job.run.completed'] });
    receiver.secrets.set(path, hook.hmac_secret);
    ids.push(hook.id);
  }
  return ids;
}

/** Deliveries per second end to end: from the first event posted until the receiver holds every delivery. */
async function deliveryThroughput(service: ServiceProcess, receiver: BenchReceiver, client: WebhooksClient): Promise<{ perSecond: number; deliveries: number }> {
  await createSubscribers(client, receiver, SCALE.subscribers, 'throughput');
  const pool = new Pool(new URL(service.baseUrl).origin, { connections: INGEST_CONCURRENCY });
  const expected = SCALE.events * SCALE.subscribers;
  receiver.capture = true;
  const started = performance.now();
  await ingest(pool, '/api/v3/accounts/1/webhooks/events', Array.from({ length: SCALE.events }, (_, i) => i + 1), INGEST_CONCURRENCY);
  await waitUntil(() => receiver.delivered() >= expected, `${expected} deliveries`, 600_000);
  const seconds = (performance.now() - started) / 1000;
  receiver.capture = false;
  await pool.close();
  return { perSecond: expected / seconds, deliveries: expected };
}

/** The same signed requests POSTed by a plain undici loop at the same concurrency, with no storage. */
async function deliveryCeiling(receiver: BenchReceiver, requests: SignedRequest[]): Promise<number> {
  const pool = new Pool(receiver.url, { connections: DELIVERY_CONCURRENCY });
  let next = 0;
  const started = performance.now();
  const loop = async () => {
    while (next < requests.length) {
      const { path, authorization, body } = requests[next++]!;
      const response = await pool.request({ method: 'POST', path, headers: { authorization, 'content-type': 'application/json' }, body });
      await response.body.text();
    }
  };
  await Promise.all(Array.from({ length: DELIVERY_CONCURRENCY }, loop));
  const perSecond = requests.length / ((performance.now() - started) / 1000);
  await pool.close();
  return perSecond;
}

/** Ingestion accepted -> receiver hit, for one subscriber, with events posted at a steady rate. */
async function latency(service: ServiceProcess, receiver: BenchReceiver, client: WebhooksClient): Promise<{ p50: number; p99: number }> {
  for (const hook of (await client.list({ limit: 100 })).data) await client.update(hook.id, { name: hook.name, client_url: hook.client_url, event_types: hook.event_types, active: false });
  await createSubscribers(client, receiver, 1, 'latency');
  const pool = new Pool(new URL(service.baseUrl).origin, { connections: 32 });
  const accepted = new Map<string, number>();
  const total = SCALE.latencyRate * SCALE.latencySeconds;
  const firstRunId = 1_000_000;
  const started = performance.now();
  const sends: Array<Promise<void>> = [];
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / SCALE.latencyRate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    sends.push(ingest(pool, '/api/v3/accounts/1/webhooks/events', [firstRunId + i], 1, accepted));
  }
  await Promise.all(sends);
  await waitUntil(() => [...accepted.keys()].every((runId) => receiver.arrivals.has(runId)), 'latency deliveries', 120_000);
  await pool.close();
  const latencies = [...accepted].map(([runId, at]) => Math.max(0, receiver.arrivals.get(runId)! - at)).sort((a, b) => a - b);
  const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return { p50: percentile(50), p99: percentile(99) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'jobhooks-bench-'));
  const receiver = await startBenchReceiver();
  const service = await startServiceProcess({
    JOBHOOKS_DB: join(dir, 'bench.db'),
    JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1',
    JOBHOOKS_BOOTSTRAP_TOKEN: TOKEN,
    JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
    // The API's per-token limit (design: 5,000/min) would throttle the load itself.
    JOBHOOKS_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  try {
    const client = createWebhooksClient({ hostUrl: service.baseUrl, accountId: 1, token: TOKEN });
    const throughput = await deliveryThroughput(service, receiver, client);
    const ceiling = await deliveryCeiling(receiver, receiver.captured);
    const { p50, p99 } = await latency(service, receiver, client);
    if (receiver.badSignatures() > 0) throw new Error(`${receiver.badSignatures()} deliveries had a bad signature`);

    const figures: Figures = {
      delivery_per_s: Math.round(throughput.perSecond),
      delivery_ceiling_per_s: Math.round(ceiling),
      delivery_ratio: Number((throughput.perSecond / ceiling).toFixed(3)),
      p50_ms: Number(p50.toFixed(1)),
      p99_ms: Number(p99.toFixed(1)),
    };
    process.stdout.write(
      [
        `jobhooks bench${QUICK ? ' --quick' : ''}: ${SCALE.events} events x ${SCALE.subscribers} subscribers; latency at ${SCALE.latencyRate} events/s for ${SCALE.latencySeconds} s`,
        `  delivery, end to end (durable)   ${figures.delivery_per_s} deliveries/s`,
        `  ceiling: undici loop, no storage ${figures.delivery_ceiling_per_s} deliveries/s`,
        `  delivery_ratio                   ${figures.delivery_ratio}`,
        `  latency accepted -> received     p50 ${figures.p50_ms} ms, p99 ${figures.p99_ms} ms`,
        JSON.stringify(figures),
        '',
      ].join('\n'),
    );
  } finally {
    await service.signal('SIGTERM');
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
