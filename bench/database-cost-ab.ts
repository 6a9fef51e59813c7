// `npx tsx bench/database-cost-ab.ts --other=DIR`: PostgreSQL's CPU per delivery with this checkout's PostgreSQL
// store against another checkout's (DIR, with its dependencies installed or linked), driven step by step in turn on
// one durable cluster, so both meet the same machine. No service, HTTP or receiver: each step takes in 25 events
// to 16 webhooks through the store, then claims and records every due delivery as a success, in two batches per
// claim. The CPU is that of each database's own backends, read from /proc (a backend's command line names its
// database) after every step, so that a pooled connection closed meanwhile keeps what it used. Without --other,
// this checkout is compared with itself: the spread of the method.
// `--other-sql=SQL` runs SQL on the other side's database once its schema is made, before the run: a schema change
// measured before it is built (`--other-sql="DROP INDEX delivery_attempts_by_age"`, say).
// `--other-without-claims`: the other side makes no claim. Its deliveries are leased to it as they are inserted (a
// column default), and it records the results of those it took in: what a delivery would cost if the instance that
// takes an event in sent its deliveries itself, with no claim to find them again.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import type { ClaimedDelivery } from '../service/src/domain/delivery';
import type { Store } from '../service/src/store/store';
import {
  accountWithWebhooks,
  attemptOf,
  countFailures,
  deliveryId,
  event,
  fanOutToAll,
  SECOND,
  T0,
  TAIL,
  traceparentOf,
} from '../test/store/contract/fixtures';
import { createTestDatabase, startTestCluster, type TestCluster } from '../test/support/postgres';
import { openTestStore, type TestStore } from '../test/support/stores';

const WEBHOOKS = 16;
const EVENTS_PER_STEP = 25;
const WARM_UP_STEPS = 12;
/** Due deliveries a claim considers per webhook: 128 a claim, about what the service's claims lease in the bench. */
const PER_WEBHOOK = 8;

type OpenStore = (backend: 'postgres', location: string) => Promise<TestStore>;

function option(name: string): string | undefined {
  return process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/**
 * The CPU time of the backends connected to database `name`, each as last read: `read()` looks again (a backend
 * that has exited keeps its last reading), `seconds()` sums them.
 */
function backendsCpu(name: string): { read(): void; seconds(): number } {
  const ticksOf = new Map<number, number>();
  const read = () => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(` ${name} `)) continue;
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // utime and stime: fields 14 and 15 of /proc/PID/stat, counted from the state (field 3).
        ticksOf.set(Number(entry), Number(fields[11]) + Number(fields[12]));
      } catch {
        // exited meanwhile: its last reading stands
      }
    }
  };
  const seconds = () => [...ticksOf.values()].reduce((sum, ticks) => sum + ticks, 0) / TICKS_PER_SECOND;
  return { read, seconds };
}

interface Side {
  label: string;
  step(): Promise<void>;
  delivered(): number;
  cpuSeconds(): number;
  close(): Promise<void>;
}

async function runSql(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The lease `--other-without-claims` gives every delivery as it is inserted. */
const LEASED_AT_INSERT = 'ab-taken-in/1';

/** A delivery of `eventId` to `webhookId` as its instance would hold it after taking the event in, leased. */
function takenIn(eventId: string, webhookId: string, dueAt: number): ClaimedDelivery {
  return {
    id: deliveryId(eventId, webhookId),
    lease: LEASED_AT_INSERT,
    eventId,
    eventType: 'job.run.completed',
    webhookId,
    accountId: 1,
    dueAt,
    maxRequestsPerSecond: null,
    payload: TAIL,
    trace: { traceparent: traceparentOf(eventId), tracestate: null },
    attempts: 0,
    clientUrl: `http://127.0.0.1:9/${webhookId}`,
    sealedSecret: `v1:sealed-${webhookId}`,
    previousSealedSecret: null,
    previousSecretUntil: null,
    lastAttempt: false,
    active: true,
    archived: false,
  };
}

async function openSide(
  label: string,
  open: OpenStore,
  cluster: TestCluster,
  sql: string | null,
  withoutClaims = false,
): Promise<Side> {
  const url = await createTestDatabase(cluster.socketDir);
  const cpu = backendsCpu(new URL(url).pathname.slice(1));
  const opened = await open('postgres', url);
  if (sql !== null) await runSql(url, sql);
  if (withoutClaims)
    await runSql(url, `ALTER TABLE deliveries ALTER COLUMN lease_owner SET DEFAULT '${LEASED_AT_INSERT}'`);
  const store: Store = opened.store;
  const webhookIds = Array.from({ length: WEBHOOKS }, (_, i) => `wsu_${String(i).padStart(4, '0')}`);
  await accountWithWebhooks(store, 1, webhookIds);
  let now = T0 + SECOND;
  let events = 0;
  let delivered = 0;

  async function claimAndRecord(): Promise<number> {
    const request = { owner: 'ab', now, leaseUntil: now + 30 * SECOND, perWebhook: PER_WEBHOOK, excludeWebhookIds: [] };
    const claimed = await store.deliveries.claimDue(request, (candidates) => candidates);
    now += 1000;
    const half = Math.ceil(claimed.length / 2);
    for (const part of [claimed.slice(0, half), claimed.slice(half)].filter((p) => p.length > 0)) {
      const results = part.map((c) => attemptOf(c, { requestedAt: now, delivery: { state: 'succeeded' } }));
      await store.deliveries.recordAttempts(results, countFailures);
    }
    return claimed.length;
  }

  /** The results of the deliveries just taken in, in batches the size of a claimed batch's (half a claim). */
  async function recordTakenIn(eventIds: readonly string[], dueAt: number): Promise<number> {
    const taken = eventIds.flatMap((eventId) => webhookIds.map((webhookId) => takenIn(eventId, webhookId, dueAt)));
    const batch = (PER_WEBHOOK * WEBHOOKS) / 2;
    for (let i = 0; i < taken.length; i += batch) {
      const part = taken.slice(i, i + batch);
      await store.deliveries.recordAttempts(
        part.map((c) => attemptOf(c, { requestedAt: now, delivery: { state: 'succeeded' } })),
        countFailures,
      );
    }
    return taken.length;
  }

  return {
    label,
    step: async () => {
      const ids = Array.from({ length: EVENTS_PER_STEP }, () => `wev_${String((events += 1)).padStart(10, '0')}`);
      const createdAt = now;
      await Promise.all(ids.map((id) => store.events.record(event(1, id, { createdAt }), fanOutToAll(id))));
      now += 1000;
      if (withoutClaims) delivered += await recordTakenIn(ids, createdAt);
      else
        for (let claimed = await claimAndRecord(); claimed > 0; claimed = await claimAndRecord()) delivered += claimed;
      cpu.read();
    },
    delivered: () => delivered,
    cpuSeconds: () => cpu.seconds(),
    close: () => opened.close(),
  };
}

/** One round: both sides warmed up, then measured over `steps` steps taken in turn, the first side alternating. */
interface Other {
  open: OpenStore;
  label: string;
  sql: string | null;
  withoutClaims: boolean;
}

async function round(cluster: TestCluster, steps: number, other: Other): Promise<string> {
  const otherLabel = other.label;
  const sides = [
    await openSide('this checkout', openTestStore, cluster, null),
    await openSide(otherLabel, other.open, cluster, other.sql, other.withoutClaims),
  ];
  try {
    for (let i = 0; i < WARM_UP_STEPS; i += 1) for (const side of sides) await side.step();
    const before = sides.map((side) => ({ cpu: side.cpuSeconds(), delivered: side.delivered() }));
    for (let i = 0; i < steps; i += 1) for (const side of i % 2 === 0 ? sides : [...sides].reverse()) await side.step();
    const perDelivery = sides.map(
      (side, k) => ((side.cpuSeconds() - before[k]!.cpu) * 1e6) / (side.delivered() - before[k]!.delivered),
    );
    const [mine, theirs] = perDelivery as [number, number];
    const [ours, others] = sides.map((side, k) => side.delivered() - before[k]!.delivered) as [number, number];
    return `${ours} and ${others} deliveries: this checkout ${mine.toFixed(1)} µs, ${otherLabel} ${theirs.toFixed(1)} µs of PostgreSQL CPU per delivery; ratio ${(mine / theirs).toFixed(3)}`;
  } finally {
    for (const side of sides) await side.close();
  }
}

async function main(): Promise<void> {
  const otherDir = option('other');
  const rounds = Number(option('rounds') ?? 3);
  const steps = Math.ceil(Number(option('events') ?? 2000) / EVENTS_PER_STEP);
  const sql = option('other-sql') ?? null;
  const open: OpenStore =
    otherDir === undefined
      ? openTestStore
      : (require(resolve(otherDir, 'test/support/stores')) as { openTestStore: OpenStore }).openTestStore;
  const withoutClaims = process.argv.includes('--other-without-claims');
  const label = `${otherDir ?? 'this checkout again'}${sql === null ? '' : ' with its SQL'}${withoutClaims ? ' without claims' : ''}`;
  const other: Other = { open, label, sql, withoutClaims };
  console.log(
    `Comparing PostgreSQL CPU per delivery: this checkout and ${label}, ${rounds} rounds (this waits a few minutes)`,
  );
  const cluster = startTestCluster({ durable: true });
  try {
    for (let r = 1; r <= rounds; r += 1) console.log(`round ${r}: ${await round(cluster, steps, other)}`);
  } finally {
    cluster.stop();
  }
}

void main();
