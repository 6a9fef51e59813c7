// `npm run bench -- --postgres`: delivery throughput with one and with two instances on one PostgreSQL database,
// each against the ceiling measured in the same run (the same signed requests from a plain undici loop), and what
// each delivery costs the database: statements, WAL bytes and CPU (bench/database-work.ts), in the fan-out run and
// in a run of as many deliveries to one webhook. The cluster is Debian's PostgreSQL, started in a temporary folder with its
// durable defaults (fsync and synchronous_commit on), on the same machine as the instances and the receiver.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { createWebhooksClient } from '@jobhooks/client';
import {
  createTestDatabase,
  dropTestDatabase,
  startTestCluster,
  TEST_SECRET_KEY,
  type TestCluster,
} from '../test/support/postgres';
import { startServiceProcess, type ServiceProcess } from '../test/support/service-process';
import { createWebhooks, deliverEvents, ratio, TOKEN, WARM_UP_FIRST_RUN_ID } from './load';
import type { BenchReceiver, SignedRequest } from './receiver';
import { countDatabaseWork, type DatabaseWork } from './database-work';
import { type CpuByKind, type ProcessKind, sampleClusterCpu, statOf, TICKS_PER_SECOND } from './cluster-cpu';
import { countThreadCpu, fullCoresFigure, fullCoresNote, type ThreadCpu } from './thread-cpu';

export interface ScaleOutOptions {
  receiver: BenchReceiver;
  /** Webhooks of the run; deliveries = events x webhooks. */
  webhooks: number;
  events: number;
  /**
   * Deliveries made before each run is measured, to the same webhooks, as the SQLite run does (bench/run.ts,
   * WARM_UP_EVENTS): the instances are measured warm, like the ceiling.
   */
  warmUpDeliveries: number;
  ingestConcurrency: number;
  /** The same-run ceiling for a set of signed requests; `measure` wraps its timed replay alone. */
  ceiling: (requests: SignedRequest[], measure?: (run: () => Promise<number>) => Promise<number>) => Promise<number>;
  /** Read each run's WAL back and sum it by table and index (`--wal`). */
  walByRelation?: boolean;
  /** Told what each run cost the database, with its deliveries (`--statements`, `--wal`). */
  onDatabaseWork?: (run: string, work: DatabaseWork, deliveries: number) => void;
  /**
   * `--threads`: told where the machine's CPU went during each one-instance run (bench/thread-cpu.ts), the
   * instance's threads and the bench's process, with the run's deliveries (`part` 'deliveries'); then during its
   * ceiling's timed replay (`part` 'ceiling', the run named `${run}, its ceiling`).
   */
  onThreadCpu?: (run: string, cpu: ThreadCpu, deliveries: number, part: 'deliveries' | 'ceiling') => void;
  /** Node flags of each instance, named by its run and number (`--profile`: a CPU profile each). */
  nodeFlags?: (instance: string) => string[];
  /** More environment for each instance (bench/postgres-alternate.ts: a variant's settings). */
  env?: Readonly<Record<string, string>>;
}

export interface ScaleOutFigures {
  [name: string]: number;
}

const ACCOUNT_ID = 1;

/**
 * CPU seconds the cluster has used so far: the postmaster's own and its exited children's (cutime, cstime),
 * plus each running backend's. A backend that exits between two readings moves from the second sum to the first.
 */
function clusterCpuSeconds(cluster: TestCluster): number {
  const postmaster = Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const main = statOf(postmaster);
  if (main === null) throw new Error('the benchmark cluster is not running');
  let ticks = main.own + main.children;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const process = statOf(entry);
    if (process?.ppid === postmaster) ticks += process.own;
  }
  return ticks / TICKS_PER_SECOND;
}

export function startInstance(
  url: string,
  nodeFlags: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<ServiceProcess> {
  return startServiceProcess(
    {
      JOBHOOKS_DATABASE_URL: url,
      JOBHOOKS_SECRET_KEY: TEST_SECRET_KEY,
      JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: String(ACCOUNT_ID),
      JOBHOOKS_BOOTSTRAP_TOKEN: TOKEN,
      JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
      // As in the SQLite runs: the per-account limits would throttle the load itself.
      JOBHOOKS_RATE_LIMIT_PER_MINUTE: '100000000',
      JOBHOOKS_INGEST_RATE_LIMIT_PER_MINUTE: '100000000',
      ...env,
    },
    nodeFlags,
  );
}

export interface Run {
  perSecond: number;
  ceiling: number;
  /** The database's work divided by the run's deliveries. */
  perDelivery: Pick<DatabaseWork, 'statements' | 'walBytes' | 'cpuSeconds'> & { cpuByKind: CpuByKind };
  /** Where the machine's CPU went during the deliveries (`--threads`, one instance only), else null. */
  threads: ThreadCpu | null;
}

/** `count` instances on a new database: events posted to them in turn, until the receiver holds every delivery. */
export async function runWith(cluster: TestCluster, count: number, options: ScaleOutOptions): Promise<Run> {
  const { receiver } = options;
  const url = await createTestDatabase(cluster.socketDir);
  // One at a time: the first makes the schema and the account, the others find them.
  const instances: ServiceProcess[] = [];
  for (let i = 0; i < count; i += 1)
    instances.push(
      await startInstance(url, options.nodeFlags?.(`pg${count}-${options.webhooks}w-${i + 1}`), options.env),
    );
  try {
    const client = createWebhooksClient({ hostUrl: instances[0]!.baseUrl, accountId: ACCOUNT_ID, token: TOKEN });
    await createWebhooks(client, receiver, options.webhooks, `pg-${count}`);
    const pools = instances.map(
      (instance) => new Pool(new URL(instance.baseUrl).origin, { connections: options.ingestConcurrency }),
    );
    const deliverAll = (runIds: number[]) =>
      deliverEvents(pools, receiver, runIds, options.webhooks, options.ingestConcurrency);
    const warmUpEvents = Math.ceil(options.warmUpDeliveries / options.webhooks);
    await deliverAll(Array.from({ length: warmUpEvents }, (_, i) => WARM_UP_FIRST_RUN_ID + i));
    const expected = options.events * options.webhooks;
    receiver.captured.length = 0;
    receiver.capture = true;
    const stopCounting = await countDatabaseWork(url, () => clusterCpuSeconds(cluster), {
      walByRelation: options.walByRelation,
    });
    const sampler = sampleClusterCpu(cluster.dataDir);
    const readThreads = count === 1 && options.onThreadCpu ? countThreadCpu(instances[0]!.child.pid!) : null;
    let cpuByKind: CpuByKind;
    let perSecond: number;
    try {
      perSecond = await deliverAll(Array.from({ length: options.events }, (_, i) => i + 1));
    } finally {
      cpuByKind = sampler.stop();
    }
    const run = `${count} instance(s), ${options.webhooks} webhook(s)`;
    const threads = readThreads === null ? null : readThreads();
    if (threads !== null) options.onThreadCpu?.(run, threads, expected, 'deliveries');
    const work = await stopCounting();
    options.onDatabaseWork?.(run, work, expected);
    receiver.capture = false;
    await Promise.all(pools.map((pool) => pool.close()));
    const replayed = receiver.captured.length;
    const ceiling = await options.ceiling(receiver.captured, async (replay) => {
      if (readThreads === null) return replay();
      const readCeiling = countThreadCpu(instances[0]!.child.pid!);
      const perSecondOfCeiling = await replay();
      options.onThreadCpu?.(`${run}, its ceiling`, readCeiling(), replayed, 'ceiling');
      return perSecondOfCeiling;
    });
    receiver.captured.length = 0;
    return {
      perSecond,
      ceiling,
      perDelivery: {
        statements: work.statements / expected,
        walBytes: work.walBytes / expected,
        cpuSeconds: work.cpuSeconds / expected,
        cpuByKind: perEach(cpuByKind, expected),
      },
      threads,
    };
  } finally {
    await Promise.all(instances.map((instance) => instance.signal('SIGTERM')));
    // Each run's 55,000 deliveries and their log go with it, so later runs do not share the disk and the
    // checkpoints with the data of earlier ones.
    await dropTestDatabase(url);
  }
}

const KINDS: ProcessKind[] = ['clients', 'autovacuum', 'walWriter', 'checkpoints', 'rest'];
/** The figure's name part of each kind of process (bench/cluster-cpu.ts). */
const KIND_NAMES: Record<ProcessKind, string> = {
  clients: 'clients',
  autovacuum: 'autovacuum',
  walWriter: 'wal_writer',
  checkpoints: 'checkpoints',
  rest: 'rest',
};

function perEach(cpu: CpuByKind, deliveries: number): CpuByKind {
  return Object.fromEntries(KINDS.map((kind) => [kind, cpu[kind] / deliveries])) as CpuByKind;
}

/** `<prefix>_ratio_at_full_cores` (thread-cpu.ts) when the run's threads were read. */
const runFullCoresFigure = (prefix: string, run: Run): ScaleOutFigures =>
  fullCoresFigure(prefix, ratio(run.perSecond, run.ceiling), run.threads);

function workFigures(prefix: string, run: Run): ScaleOutFigures {
  return {
    [`${prefix}_cpu_us_per_delivery`]: Math.round(run.perDelivery.cpuSeconds * 1_000_000),
    ...Object.fromEntries(
      KINDS.map((kind) => [
        `${prefix}_${KIND_NAMES[kind]}_cpu_us_per_delivery`,
        Math.round(run.perDelivery.cpuByKind[kind] * 1_000_000),
      ]),
    ),
    [`${prefix}_statements_per_delivery`]: Number(run.perDelivery.statements.toFixed(2)),
    [`${prefix}_wal_bytes_per_delivery`]: Math.round(run.perDelivery.walBytes),
  };
}

export async function postgresScaleOut(options: ScaleOutOptions): Promise<ScaleOutFigures> {
  const cluster = startTestCluster({ durable: true, countStatements: true });
  try {
    const one = await runWith(cluster, 1, options);
    const two = await runWith(cluster, 2, options);
    const oneWebhook = await runWith(cluster, 1, {
      ...options,
      webhooks: 1,
      events: options.events * options.webhooks,
    });
    return {
      pg1_delivery_per_s: Math.round(one.perSecond),
      pg1_ceiling_per_s: Math.round(one.ceiling),
      pg1_ratio: ratio(one.perSecond, one.ceiling),
      ...runFullCoresFigure('pg1', one),
      ...workFigures('pg1', one),
      pg2_delivery_per_s: Math.round(two.perSecond),
      pg2_ceiling_per_s: Math.round(two.ceiling),
      pg2_ratio: ratio(two.perSecond, two.ceiling),
      ...workFigures('pg2', two),
      pg2_over_pg1: ratio(two.perSecond, one.perSecond),
      pg1_one_webhook_delivery_per_s: Math.round(oneWebhook.perSecond),
      pg1_one_webhook_ratio: ratio(oneWebhook.perSecond, oneWebhook.ceiling),
      ...runFullCoresFigure('pg1_one_webhook', oneWebhook),
      ...workFigures('pg1_one_webhook', oneWebhook),
    };
  } finally {
    cluster.stop();
  }
}

export function scaleOutLines(figures: ScaleOutFigures): string[] {
  return [
    `  PostgreSQL, 1 instance (durable)     ${figures.pg1_delivery_per_s} deliveries/s, ceiling ${figures.pg1_ceiling_per_s}   pg1_ratio ${figures.pg1_ratio}${fullCoresNote(figures, 'pg1')}`,
    `  PostgreSQL, 2 instances              ${figures.pg2_delivery_per_s} deliveries/s, ceiling ${figures.pg2_ceiling_per_s}   pg2_ratio ${figures.pg2_ratio}   pg2_over_pg1 ${figures.pg2_over_pg1}`,
    `  PostgreSQL, 1 instance, 1 webhook    ${figures.pg1_one_webhook_delivery_per_s} deliveries/s   pg1_one_webhook_ratio ${figures.pg1_one_webhook_ratio}${fullCoresNote(figures, 'pg1_one_webhook')}`,
    '  PostgreSQL per delivery              CPU µs   statements   WAL bytes',
    ...['pg1', 'pg2', 'pg1_one_webhook'].map(
      (run) =>
        `    ${run.padEnd(34)} ${String(figures[`${run}_cpu_us_per_delivery`]).padStart(6)}   ` +
        `${String(figures[`${run}_statements_per_delivery`]).padStart(10)}   ${String(figures[`${run}_wal_bytes_per_delivery`]).padStart(9)}`,
    ),
    '  PostgreSQL CPU µs per delivery by process   clients   autovacuum   WAL writer   checkpoints   rest',
    ...['pg1', 'pg2', 'pg1_one_webhook'].map(
      (run) =>
        `    ${run.padEnd(40)}` +
        KINDS.map((kind, i) =>
          String(figures[`${run}_${KIND_NAMES[kind]}_cpu_us_per_delivery`]).padStart([7, 13, 13, 14, 7][i]!),
        ).join(''),
    ),
  ];
}
