// `npm run bench [-- --quick]`: measures the service against ceilings measured on the same machine in the
// same run, prints a table and, as its last line, one JSON object with every figure and ratio:
// - delivery throughput end to end, and its ceiling (the same signed requests from a plain undici loop);
// - latency from ingestion accepted to receiver hit, at a steady rate;
// - management API throughput (GET one webhook, create) with autocannon, and a bare Fastify ceiling;
// - the backlog cost: the dispatch rate with a million due deliveries against a small backlog, and peak RSS;
// - noisy neighbours: one healthy webhook's latency beside 200 webhooks that answer, then 200 that hang
//   (bench/noisy-neighbours.ts).
// - the statistics endpoints with a million logged attempts, against GET one webhook (bench/statistics.ts).
// `--only=noisy` runs just the noisy-neighbour scenario (with or without --quick), for iterating on it;
// `--only=statistics` just the statistics scenario (on PostgreSQL too, with --postgres); `--only=delivery` the
// delivery throughput, latency and API steps (the first service process of a whole run); `--only=tracing` the
// delivery throughput and latency runs with traces off and exported over OTLP/HTTP to a receiver in the bench, and
// their ratio (bench/tracing.ts); `--only=terraform-start` the Terraform provider's start, cached and uncached,
// against Node.js's own (bench/terraform-start.ts). `--threads` prints, on stderr, where the machine's CPU went during the delivery
// steps (bench/thread-cpu.ts), also during the one-instance runs of `--postgres`.
// `--postgres` runs the scale-out scenario instead: one and two instances on one PostgreSQL database
// (bench/postgres-scale-out.ts; needs Debian's postgresql package), then the statistics scenario on PostgreSQL and
// one claim's plans with a million due deliveries (bench/postgres-backlog-plans.ts);
// with `--statements`, each scale-out run's most executed statements go to stderr, and with `--wal` its WAL per
// delivery by table and index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { createWebhooksClient, type WebhooksClient } from '@jobhooks/client';
import { loadConfig } from '../service/src/config';
import { apiThroughput } from './api-throughput';
import { type BacklogTemplate, drainRate, fillBacklog, peakRssMb } from './backlog';
import { NOISY_SECONDS, noisyLines, noisyNeighbours, type NoisyOptions } from './noisy-neighbours';
import { postgresScaleOut, scaleOutLines, startInstance } from './postgres-scale-out';
import { backlogPlanFigures, backlogPlanLines, postgresBacklogPlans } from './postgres-backlog-plans';
import type { DatabaseWork } from './database-work';
import { statisticsLines, statisticsScenario, type StatisticsFigures } from './statistics';
import { terraformStart, terraformStartLines } from './terraform-start';
import { tracingLines, tracingScenario } from './tracing';
import { createTestDatabase, startTestCluster } from '../test/support/postgres';
import {
  createWebhooks,
  deliverEvents,
  ingestAtRate,
  latenciesOf,
  percentile,
  ratio,
  TOKEN,
  waitUntil,
  WARM_UP_FIRST_RUN_ID,
} from './load';
import { startBenchReceiver, type BenchReceiver } from './receiver';
import { createDeliveryCeiling } from './ceiling';
import { DISPATCH_LIMITS, deliveryRunShape, INGEST_CONCURRENCY } from './delivery-run-shape';
import { countThreadCpu, fullCoresFigure, fullCoresNote, threadCpuLine, type ThreadCpu } from './thread-cpu';
import { checkPerfInstalled, recordThread } from './perf-record';
import { startServiceProcess, type ServiceProcess } from '../test/support/service-process';

const QUICK = process.argv.includes('--quick');
/** `--only=noisy`: just the noisy-neighbour scenario. */
const ONLY = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
if (ONLY !== undefined && !['delivery', 'noisy', 'statistics', 'tracing', 'terraform-start'].includes(ONLY))
  throw new Error(
    `--only=${ONLY}: the scenarios that run alone are delivery, noisy, statistics, tracing and terraform-start`,
  );
/** `--threads`: CPU per thread of the service, the bench's and the machine's idle time during the delivery steps. */
const THREADS = process.argv.includes('--threads');
const POSTGRES = process.argv.includes('--postgres');
/** `--statements` (with --postgres): each run's most executed statements, on stderr. */
const STATEMENTS = process.argv.includes('--statements');
/** `--wal` (with --postgres): each run's WAL per delivery by table and index, on stderr. */
const WAL = process.argv.includes('--wal');
/** `--perf=DIR`: a `perf` profile of the service's main thread during the measured delivery run (bench/perf-record.ts). */
const PERF_DIR = process.argv.find((arg) => arg.startsWith('--perf='))?.slice('--perf='.length);
/** `--profile=DIR`: each service process writes a V8 CPU profile there (summarise with bench/profile-summary.ts). */
const PROFILE_DIR = process.argv.find((arg) => arg.startsWith('--profile='))?.slice('--profile='.length);
/**
 * `--service-node-flag=FLAG`, once per flag: each service process is started with these Node flags too
 * (`--service-node-flag=--max-semi-space-size=32`), to measure an operator's setting in the bench's own runs.
 */
const SERVICE_NODE_FLAGS = process.argv
  .filter((arg) => arg.startsWith('--service-node-flag='))
  .map((arg) => arg.slice('--service-node-flag='.length));
/** When commits reach the disk (JOBHOOKS_DURABILITY, inherited by the service like the limits): printed with the figures. */
const DURABILITY = loadConfig(process.env).durability;
const DELIVERY_CONCURRENCY = DISPATCH_LIMITS.maxInFlight;
/** The throughput run: its webhooks, its events, and the warm-up's (bench/delivery-run-shape.ts). */
const RUN = deliveryRunShape(QUICK);
const SCALE = QUICK
  ? {
      latencyRate: 1000,
      latencySeconds: 3,
      apiSeconds: 2,
      backlog: 100_000,
      baselineBacklog: 30_000,
      drainSeconds: 2,
      noisySeconds: NOISY_SECONDS.quick,
      // Each event makes 201 deliveries: ten a second is a steady load within the delivery throughput above,
      // so the baseline measures the fan-out's cost, not a backlog building up.
      noisyRate: 10,
      statsAttempts: 100_000,
      statsSeconds: 2,
      terraformStarts: 5,
    }
  : {
      latencyRate: 1000,
      latencySeconds: 10,
      apiSeconds: 5,
      backlog: 1_000_000,
      baselineBacklog: 150_000,
      drainSeconds: 10,
      noisySeconds: NOISY_SECONDS.full,
      noisyRate: 10,
      statsAttempts: 1_000_000,
      statsSeconds: 6,
      terraformStarts: 15,
    };
/** The webhooks the statistics scenario spreads its attempts over: an account's default limit. */
const STATS_WEBHOOKS = 1000;
const EVENTS = RUN.events;

interface Figures {
  [name: string]: number;
}

/**
 * Events posted before the measured throughput run, to the same webhooks, and as many of its requests replayed
 * before the ceiling's: each side is measured warm. Without it the service alone would start cold (its code not
 * yet optimised by V8, its page cache empty) while the ceiling's process has already received every delivery
 * (docs/performance.md#what-the-figures-mean). The warm-up's own rate is reported.
 */
const WARM_UP_EVENTS = RUN.warmUpEvents;
const WARM_UP_DELIVERIES = RUN.warmUpDeliveries;

/**
 * Deliveries per second end to end, from the first event posted until the receiver holds every delivery, after a
 * warm-up; `measure` wraps the measured run alone (--threads).
 */
async function deliveryThroughput(
  service: ServiceProcess,
  receiver: BenchReceiver,
  client: WebhooksClient,
  measure: (run: () => Promise<number>) => Promise<number> = (run) => run(),
): Promise<{ perSecond: number; warmUpPerSecond: number; deliveries: number; webhookIds: string[] }> {
  const webhookIds = await createWebhooks(client, receiver, RUN.webhooks, 'throughput');
  const pool = new Pool(new URL(service.baseUrl).origin, { connections: INGEST_CONCURRENCY });
  const deliver = (runIds: number[]) => deliverEvents([pool], receiver, runIds, RUN.webhooks, INGEST_CONCURRENCY);
  const warmUpPerSecond = await deliver(Array.from({ length: WARM_UP_EVENTS }, (_, i) => WARM_UP_FIRST_RUN_ID + i));
  receiver.capture = true;
  const perSecond = await measure(() => deliver(Array.from({ length: EVENTS }, (_, i) => i + 1)));
  receiver.capture = false;
  await pool.close();
  return { perSecond, warmUpPerSecond, deliveries: EVENTS * RUN.webhooks, webhookIds };
}

/** The ceiling of the delivery runs: the same signed requests from a plain undici loop (bench/ceiling.ts). */
const deliveryCeiling = createDeliveryCeiling(DELIVERY_CONCURRENCY, WARM_UP_DELIVERIES);

/** Ingestion accepted -> receiver hit, for one subscriber, with events posted at a steady rate. */
async function latency(
  service: ServiceProcess,
  receiver: BenchReceiver,
  client: WebhooksClient,
): Promise<{ p50: number; p99: number }> {
  for (const hook of (await client.list({ limit: 100 })).data)
    await client.update(hook.id, {
      name: hook.name,
      client_url: hook.client_url,
      event_types: hook.event_types,
      active: false,
    });
  await createWebhooks(client, receiver, 1, 'latency');
  const pool = new Pool(new URL(service.baseUrl).origin, { connections: 32 });
  const total = SCALE.latencyRate * SCALE.latencySeconds;
  const firstRunId = 1_000_000;
  const runIds = Array.from({ length: total }, (_, i) => firstRunId + i);
  const accepted = await ingestAtRate(pool, '/api/v3/accounts/1/webhooks/events', runIds, SCALE.latencyRate);
  await waitUntil(
    () => [...accepted.keys()].every((runId) => receiver.arrivals.has(runId)),
    'latency deliveries',
    120_000,
  );
  await pool.close();
  const latencies = latenciesOf(accepted, receiver.arrivals);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const ACCOUNT_ID = 1;

/** `--profile`: the flags that make a service process write its V8 CPU profile, named by its label. */
const cpuProfileFlags = (label: string): string[] =>
  PROFILE_DIR === undefined
    ? []
    : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=service-${label}.cpuprofile`];

/** Said in the first line of a run's output, so that its figures are not taken for the defaults'. */
const FLAGS_NOTE = SERVICE_NODE_FLAGS.length === 0 ? '' : `; service Node flags ${SERVICE_NODE_FLAGS.join(' ')}`;

/** The Node flags of a service process: `--service-node-flag`'s, then the profiler's. */
const serviceNodeFlags = (profiling: readonly string[]): string[] => [...SERVICE_NODE_FLAGS, ...profiling];

function startService(databasePath: string, label: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const profiling =
    PERF_DIR !== undefined
      ? // perf names compiled JavaScript from the map this writes to /tmp; V8's own log goes with the profile.
        ['--perf-basic-prof', `--logfile=${join(PERF_DIR, `service-${label}-v8.log`)}`, '--no-logfile-per-isolate']
      : cpuProfileFlags(label);
  return startServiceProcess(
    {
      JOBHOOKS_DB: databasePath,
      JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: String(ACCOUNT_ID),
      JOBHOOKS_BOOTSTRAP_TOKEN: TOKEN,
      JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
      // The API's per-account limits (5,000 requests and 60,000 events a minute) would throttle the load
      // itself, and the create benchmark makes far more than the 1,000 webhooks an account may have.
      JOBHOOKS_RATE_LIMIT_PER_MINUTE: '100000000',
      JOBHOOKS_INGEST_RATE_LIMIT_PER_MINUTE: '100000000',
      JOBHOOKS_MAX_SUBSCRIPTIONS_PER_ACCOUNT: '100000000',
      ...env,
    },
    serviceNodeFlags(profiling),
  );
}

/** Restarts the service on the database with `count` due deliveries added; the rate they drain at, and peak RSS. */
async function backlogRun(databasePath: string, receiver: BenchReceiver, templates: BacklogTemplate[], count: number) {
  fillBacklog(databasePath, templates, count, ACCOUNT_ID, count);
  const service = await startService(databasePath, `backlog-${count}`);
  try {
    const perSecond = await drainRate(receiver, SCALE.drainSeconds, count);
    return { perSecond, rssMb: peakRssMb(service.child.pid!) };
  } finally {
    await service.signal('SIGTERM');
  }
}

/** One captured request per webhook, for backlog bodies that the receiver accepts as genuine. */
function templatesOf(receiver: BenchReceiver, webhookIds: string[]): BacklogTemplate[] {
  return webhookIds.map((webhookId, i) => {
    const request = receiver.captured.find((captured) => captured.path === `/throughput/${i}`);
    if (!request) throw new Error(`no delivery captured for /throughput/${i}`);
    return { webhookId, request };
  });
}

/** `run`, with the service's main thread recorded by perf meanwhile when --perf asks for it. */
async function withPerf<T>(servicePid: number, run: () => Promise<T>): Promise<T> {
  if (PERF_DIR === undefined) return run();
  const stop = await recordThread(servicePid, PERF_DIR, 'delivery');
  try {
    return await run();
  } finally {
    await stop();
  }
}

async function main(): Promise<void> {
  if (PERF_DIR !== undefined) checkPerfInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'jobhooks-bench-'));
  const databasePath = join(dir, 'bench.db');
  const receiver = await startBenchReceiver();
  let service: ServiceProcess | null = await startService(databasePath, 'deliveries-and-api');
  try {
    const client = createWebhooksClient({ hostUrl: service.baseUrl, accountId: ACCOUNT_ID, token: TOKEN });
    const first = service;
    const pid = first.child.pid!;
    // Where the machine's CPU went during the measured delivery run (--threads), set by `measured`.
    const deliveryCpu: { threads: ThreadCpu | null } = { threads: null };
    const throughput = await deliveryThroughput(first, receiver, client, (run) =>
      measured(
        'delivery',
        pid,
        () => withPerf(pid, run),
        () => ({ count: EVENTS * RUN.webhooks, name: 'delivery' }),
        (threads) => (deliveryCpu.threads = threads),
      ),
    );
    const templates = templatesOf(receiver, throughput.webhookIds);
    const replayed = { count: receiver.captured.length, name: 'delivery' };
    const ceiling = await deliveryCeiling(receiver, receiver.captured, (run) =>
      measured('its ceiling', pid, run, () => replayed),
    );
    receiver.captured.length = 0;
    const { p50, p99 } = await latency(service, receiver, client);
    const api = await measured('the API steps', pid, () =>
      apiThroughput(
        {
          origin: new URL(first.baseUrl).origin,
          pid,
          token: TOKEN,
          accountId: ACCOUNT_ID,
          webhookId: throughput.webhookIds[0]!,
          createPath: `/api/v3/accounts/${ACCOUNT_ID}/webhooks/subscriptions`,
          // An event type no benchmark posts, so the webhooks this makes never receive anything.
          createBody: JSON.stringify({
            name: 'created by autocannon',
            client_url: `${receiver.url}/unused`,
            event_types: ['job.run.started'],
          }),
        },
        SCALE.apiSeconds,
      ),
    );
    const deliveryFigures: Figures = {
      delivery_per_s: Math.round(throughput.perSecond),
      delivery_ceiling_per_s: Math.round(ceiling),
      delivery_ratio: ratio(throughput.perSecond, ceiling),
      ...fullCoresFigure('delivery', ratio(throughput.perSecond, ceiling), deliveryCpu.threads),
      delivery_warm_up_per_s: Math.round(throughput.warmUpPerSecond),
      p50_ms: Number(p50.toFixed(1)),
      p99_ms: Number(p99.toFixed(1)),
      api_get_per_s: Math.round(api.getPerSecond),
      api_get_ceiling_per_s: Math.round(api.getCeilingPerSecond),
      api_get_ratio: ratio(api.getPerSecond, api.getCeilingPerSecond),
      api_get_cpu_us: api.getCpuUs,
      api_get_ceiling_cpu_us: api.getCeilingCpuUs,
      api_create_per_s: Math.round(api.createPerSecond),
      api_create_ceiling_per_s: Math.round(api.createCeilingPerSecond),
      api_create_ratio: ratio(api.createPerSecond, api.createCeilingPerSecond),
    };
    if (ONLY === 'delivery') {
      process.stdout.write(
        [
          `jobhooks bench${QUICK ? ' --quick' : ''} --only=delivery: ${EVENTS} events x ${RUN.webhooks} webhooks; durability ${DURABILITY}${FLAGS_NOTE}`,
          ...deliveryLines(deliveryFigures),
          JSON.stringify(deliveryFigures),
          '',
        ].join('\n'),
      );
      return;
    }
    // The latency step switched the throughput webhooks off; the backlog is theirs.
    for (const id of throughput.webhookIds) {
      const hook = await client.get(id);
      if (!hook) throw new Error(`webhook ${id} is gone`);
      await client.update(id, {
        name: hook.name,
        client_url: hook.client_url,
        event_types: hook.event_types,
        active: true,
      });
    }
    await service.signal('SIGTERM');
    service = null;

    const baseline = await backlogRun(databasePath, receiver, templates, SCALE.baselineBacklog);
    clearPending(databasePath);
    const backlog = await backlogRun(databasePath, receiver, templates, SCALE.backlog);
    if (receiver.badSignatures() > 0) throw new Error(`${receiver.badSignatures()} deliveries had a bad signature`);
    const noisy = await noisyNeighbours(noisyOptions());
    const statistics = await sqliteStatistics(join(dir, 'statistics.db'));
    const terraform = await terraformStart(SCALE.terraformStarts);

    const figures: Figures = {
      ...deliveryFigures,
      backlog_size: SCALE.backlog,
      backlog_drain_per_s: Math.round(backlog.perSecond),
      baseline_drain_per_s: Math.round(baseline.perSecond),
      backlog_ratio: ratio(backlog.perSecond, baseline.perSecond),
      rss_mb: Math.round(backlog.rssMb),
      ...noisy,
      ...statistics,
      ...terraform,
    };
    process.stdout.write(
      [
        `jobhooks bench${QUICK ? ' --quick' : ''}: ${EVENTS} events x ${RUN.webhooks} webhooks; latency at ${SCALE.latencyRate} events/s for ${SCALE.latencySeconds} s; durability ${DURABILITY}${FLAGS_NOTE}`,
        ...deliveryLines(figures),
        `  drain with ${SCALE.backlog} due deliveries   ${figures.backlog_drain_per_s} deliveries/s, with ${SCALE.baselineBacklog}: ${figures.baseline_drain_per_s}   backlog_ratio ${figures.backlog_ratio}`,
        `  peak RSS with that backlog           ${figures.rss_mb} MB`,
        ...noisyLines(noisy, SCALE.noisyRate),
        ...statisticsLines(statistics, 'stats'),
        ...terraformStartLines(terraform),
        JSON.stringify(figures),
        '',
      ].join('\n'),
    );
  } finally {
    await service?.signal('SIGTERM');
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The delivery, latency and API lines of the table. */
function deliveryLines(figures: Figures): string[] {
  return [
    `  delivery, end to end (durable)       ${figures.delivery_per_s} deliveries/s, after ${WARM_UP_DELIVERIES} at ${figures.delivery_warm_up_per_s}/s to warm up`,
    `  ceiling: undici loop, no storage     ${figures.delivery_ceiling_per_s} deliveries/s   delivery_ratio ${figures.delivery_ratio}${fullCoresNote(figures, 'delivery')}`,
    `  latency accepted -> received         p50 ${figures.p50_ms} ms, p99 ${figures.p99_ms} ms`,
    `  API GET one webhook                  ${figures.api_get_per_s} req/s, bare Fastify ${figures.api_get_ceiling_per_s} req/s   api_get_ratio ${figures.api_get_ratio}`,
    `  CPU per GET                          ${figures.api_get_cpu_us} us, bare Fastify ${figures.api_get_ceiling_cpu_us} us`,
    `  API create                           ${figures.api_create_per_s} req/s, bare Fastify ${figures.api_create_ceiling_per_s} req/s   api_create_ratio ${figures.api_create_ratio}`,
  ];
}

/**
 * Runs a step; with --threads, prints on stderr where the machine's CPU went meanwhile, per unit of `unitsOf`'s
 * answer when given (the deliveries the step made, say), and gives that reading to `onThreads`.
 */
async function measured<T>(
  step: string,
  servicePid: number,
  run: () => Promise<T>,
  unitsOf?: (result: T) => { count: number; name: string },
  onThreads?: (threads: ThreadCpu) => void,
): Promise<T> {
  if (!THREADS) return run();
  const read = countThreadCpu(servicePid);
  const result = await run();
  const threads = read();
  process.stderr.write(threadCpuLine(step, threads, unitsOf?.(result)));
  onThreads?.(threads);
  return result;
}

/** The noisy-neighbour scenario: each of its phases starts a service of its own, as the backlog runs do. */
function noisyOptions(): NoisyOptions {
  return { startService, accountId: ACCOUNT_ID, seconds: SCALE.noisySeconds, perSecond: SCALE.noisyRate };
}

/** `--only=noisy`: the scenario's lines and figures alone, in the same form as a whole run's. */
async function noisyOnly(): Promise<void> {
  const figures = await noisyNeighbours(noisyOptions());
  process.stdout.write(
    [
      `jobhooks bench${QUICK ? ' --quick' : ''} --only=noisy: durability ${DURABILITY}${FLAGS_NOTE}`,
      ...noisyLines(figures, SCALE.noisyRate),
      JSON.stringify(figures),
      '',
    ].join('\n'),
  );
}

/** `--only=terraform-start`: the provider's starts alone, in the same form as a whole run's. */
async function terraformStartOnly(): Promise<void> {
  const figures = await terraformStart(SCALE.terraformStarts);
  process.stdout.write(
    [
      `jobhooks bench${QUICK ? ' --quick' : ''} --only=terraform-start: ${SCALE.terraformStarts} starts of each`,
      ...terraformStartLines(figures),
      JSON.stringify(figures),
      '',
    ].join('\n'),
  );
}

/** The statistics scenario on a SQLite database of its own. */
function sqliteStatistics(databasePath: string): Promise<StatisticsFigures> {
  return statisticsScenario({
    start: () => startService(databasePath, 'statistics'),
    where: { dbPath: databasePath, databaseUrl: null },
    accountId: ACCOUNT_ID,
    webhooks: STATS_WEBHOOKS,
    attempts: SCALE.statsAttempts,
    seconds: SCALE.statsSeconds,
    prefix: 'stats',
  });
}

/** The statistics scenario on a PostgreSQL database of its own, in a cluster of its own (durable, as scale-out's). */
async function postgresStatistics(): Promise<StatisticsFigures> {
  const cluster = startTestCluster({ durable: true });
  try {
    const url = await createTestDatabase(cluster.socketDir);
    return await statisticsScenario({
      start: () => startInstance(url, serviceNodeFlags(cpuProfileFlags('pg-statistics'))),
      where: { dbPath: '', databaseUrl: url },
      accountId: ACCOUNT_ID,
      webhooks: STATS_WEBHOOKS,
      attempts: SCALE.statsAttempts,
      seconds: SCALE.statsSeconds,
      prefix: 'pg_stats',
    });
  } finally {
    cluster.stop();
  }
}

/** `--only=statistics`: the statistics scenario alone, on SQLite or (with --postgres) PostgreSQL. */
async function statisticsOnly(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'jobhooks-bench-'));
  try {
    const prefix = POSTGRES ? 'pg_stats' : 'stats';
    const figures = POSTGRES ? await postgresStatistics() : await sqliteStatistics(join(dir, 'statistics.db'));
    process.stdout.write(
      [
        `jobhooks bench${QUICK ? ' --quick' : ''}${POSTGRES ? ' --postgres' : ''} --only=statistics: durability ${DURABILITY}${FLAGS_NOTE}`,
        ...statisticsLines(figures, prefix),
        JSON.stringify(figures),
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `--only=tracing`: delivery with traces off and exported, each on a new service and database. */
async function tracingOnly(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'jobhooks-bench-'));
  try {
    const figures = await tracingScenario({
      start: (label, env) => startService(join(dir, `${label}.db`), label, env),
      accountId: ACCOUNT_ID,
      throughput: deliveryThroughput,
      latency,
    });
    process.stdout.write(
      [
        `jobhooks bench${QUICK ? ' --quick' : ''} --only=tracing: ${EVENTS} events x ${RUN.webhooks} webhooks; latency at ${SCALE.latencyRate} events/s for ${SCALE.latencySeconds} s; durability ${DURABILITY}${FLAGS_NOTE}`,
        ...tracingLines(figures),
        JSON.stringify(figures),
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `--postgres`: the scale-out scenario's lines and figures, then the statistics scenario's, as a whole run's. */
async function postgresOnly(): Promise<void> {
  const receiver = await startBenchReceiver();
  try {
    const scaleOut = await postgresScaleOut({
      receiver,
      webhooks: RUN.webhooks,
      events: EVENTS,
      warmUpDeliveries: WARM_UP_DELIVERIES,
      ingestConcurrency: INGEST_CONCURRENCY,
      ceiling: (requests, measure) => deliveryCeiling(receiver, requests, measure),
      walByRelation: WAL,
      onDatabaseWork: printDatabaseWork,
      onThreadCpu: THREADS
        ? (run, cpu, deliveries) =>
            process.stderr.write(threadCpuLine(run, cpu, { count: deliveries, name: 'delivery' }))
        : undefined,
      nodeFlags: (instance) => serviceNodeFlags(cpuProfileFlags(instance)),
    });
    if (receiver.badSignatures() > 0) throw new Error(`${receiver.badSignatures()} deliveries had a bad signature`);
    const statistics = await postgresStatistics();
    const backlog = await postgresBacklogPlans();
    process.stdout.write(
      [
        `jobhooks bench${QUICK ? ' --quick' : ''} --postgres: ${EVENTS} events x ${RUN.webhooks} webhooks per run${FLAGS_NOTE}`,
        ...scaleOutLines(scaleOut),
        ...statisticsLines(statistics, 'pg_stats'),
        ...backlogPlanLines(backlog),
        JSON.stringify({ ...scaleOut, ...statistics, ...backlogPlanFigures(backlog) }),
        '',
      ].join('\n'),
    );
  } finally {
    await receiver.close();
  }
}

function printDatabaseWork(run: string, work: DatabaseWork, deliveries: number): void {
  if (STATEMENTS) {
    process.stderr.write(`Most executed statements, ${run} (calls; ms planning, ms executing, over all calls):\n`);
    for (const { calls, planMs, execMs, query } of work.mostCalled)
      process.stderr.write(
        `  ${String(calls).padStart(7)} ${planMs.toFixed(0).padStart(7)} ${execMs.toFixed(0).padStart(7)}  ${query.slice(0, 120)}\n`,
      );
  }
  if (WAL) {
    process.stderr.write(`WAL per delivery by relation, ${run} (bytes, of which full-page images; records):\n`);
    for (const { relation, records, bytes, fullPageBytes } of work.walByRelation)
      process.stderr.write(
        `  ${relation.padEnd(36)} ${(bytes / deliveries).toFixed(0).padStart(6)}  ${(fullPageBytes / deliveries).toFixed(0).padStart(6)}  ${(records / deliveries).toFixed(2).padStart(6)}\n`,
      );
  }
}

/** Drops the pending deliveries a backlog run left, so the next one starts from the same state. */
function clearPending(databasePath: string): void {
  const db = new Database(databasePath);
  db.prepare(`DELETE FROM deliveries WHERE state = 'pending'`).run();
  db.close();
}

(ONLY === 'statistics'
  ? statisticsOnly()
  : ONLY === 'tracing'
    ? tracingOnly()
    : POSTGRES
      ? postgresOnly()
      : ONLY === 'noisy'
        ? noisyOnly()
        : ONLY === 'terraform-start'
          ? terraformStartOnly()
          : main()
).catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
