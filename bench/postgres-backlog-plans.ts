// `npm run bench -- --postgres`, last: what a claim and the backlog reads cost PostgreSQL with a large backlog. A
// million due deliveries, 1,000 to each of 1,000 webhooks, then one claim through the store itself (as a
// dispatcher makes it: every webhook eligible, 16 candidates each) and the due gauge and an account's backlog.
// auto_explain logs each statement's plan with EXPLAIN (ANALYZE, BUFFERS) into the cluster's log, and the figures
// are read from there: each statement's time and the 8 KiB pages it touched, by which a statement that scans
// instead of using its index shows at once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openPool } from '../service/src/store/postgres/database';
import { createPgDeliveriesStore } from '../service/src/store/postgres/deliveries';
import { migratePostgres } from '../service/src/store/postgres/migrate';
import { createTestDatabase, startTestCluster } from '../test/support/postgres';

export interface PlanOfStatement {
  /** The first words of the statement, to tell which it is. */
  statement: string;
  ms: number;
  /** Shared buffers hit and read: the pages the statement touched. */
  pages: number;
}

export interface BacklogPlans {
  backlog: number;
  seedSeconds: number;
  claimed: number;
  plans: PlanOfStatement[];
}

const WEBHOOKS = 1000;
const PER_WEBHOOK = 1000;
const NOW = 10_000_000_000;

/** Seeds the backlog in the database at `url`: webhooks, one event per round, deliveries all due. */
async function seed(client: pg.Client): Promise<void> {
  await client.query(
    `INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (1, 'act_1', 'Bench', 'enterprise', 0)`,
  );
  await client.query(
    `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active, sealed_secret,
                           created_at, updated_at)
     SELECT 'wsu_' || g, 1, 'Webhook ' || g, '', 'http://127.0.0.1:9/', '["job.run.completed"]', '[]', true, 'sealed',
            g, g
       FROM generate_series(1, ${WEBHOOKS}) g`,
  );
  await client.query(
    `INSERT INTO events (id, account_id, event_type, run_id, created_at, payload_tail, deliveries_left)
     SELECT 'wev_' || g, 1, 'job.run.completed', 'run-' || g, g, '\\x7d'::bytea, ${WEBHOOKS}
       FROM generate_series(1, ${PER_WEBHOOK}) g`,
  );
  await client.query(
    `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
     SELECT 'wdl_' || e || '_' || w, 'wev_' || e, 'wsu_' || w, 'pending', '\\x7b'::bytea, 0, e * 1000 + w, e, e
       FROM generate_series(1, ${PER_WEBHOOK}) e, generate_series(1, ${WEBHOOKS}) w`,
  );
  await client.query('VACUUM ANALYZE');
}

/** The plans auto_explain wrote to the log from `offset` on, in JSON: each statement's time and pages. */
function plansLoggedSince(log: string, offset: number): PlanOfStatement[] {
  const text = log.slice(offset);
  const plans: PlanOfStatement[] = [];
  // Each plan follows "duration: N ms  plan:" and runs until the next line that starts a log entry.
  for (const match of text.matchAll(/duration: ([\d.]+) ms {2}plan:\n([\s\S]*?)(?=\n\d{4}-\d\d-\d\d |$)/g)) {
    const explained = JSON.parse(match[2]!) as { 'Query Text': string; Plan: Record<string, number> };
    plans.push({
      statement: explained['Query Text'].replace(/\s+/g, ' ').trim().slice(0, 60),
      ms: Number(match[1]),
      pages: (explained.Plan['Shared Hit Blocks'] ?? 0) + (explained.Plan['Shared Read Blocks'] ?? 0),
    });
  }
  return plans;
}

export async function postgresBacklogPlans(): Promise<BacklogPlans> {
  const cluster = startTestCluster({ durable: true });
  try {
    const url = await createTestDatabase(cluster.socketDir);
    const setup = openPool({ url, poolSize: 1 }, () => undefined);
    await migratePostgres(setup);
    await setup.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const started = performance.now();
    try {
      await seed(admin);
      const database = new URL(url).pathname.slice(1);
      for (const setting of [
        "session_preload_libraries = 'auto_explain'",
        'auto_explain.log_min_duration = 0',
        'auto_explain.log_analyze = on',
        'auto_explain.log_buffers = on',
        "auto_explain.log_format = 'json'",
      ])
        await admin.query(`ALTER DATABASE ${database} SET ${setting}`);
    } finally {
      await admin.end();
    }
    const seedSeconds = (performance.now() - started) / 1000;
    const logPath = join(cluster.socketDir, 'log');
    const offset = readFileSync(logPath, 'utf8').length;
    const db = openPool({ url, poolSize: 2 }, () => undefined);
    try {
      const store = createPgDeliveriesStore(db);
      const claimed = await store.claimDue(
        { owner: 'bench', now: NOW, leaseUntil: NOW + 60_000_000, perWebhook: 16, excludeWebhookIds: [] },
        (candidates) => candidates.slice(0, 256),
      );
      await store.countDue(NOW);
      await store.backlogOf(1, NOW);
      return {
        backlog: WEBHOOKS * PER_WEBHOOK,
        seedSeconds,
        claimed: claimed.length,
        plans: plansLoggedSince(readFileSync(logPath, 'utf8'), offset).filter(
          (p) => !/^(BEGIN|COMMIT)/.test(p.statement),
        ),
      };
    } finally {
      await db.close();
    }
  } finally {
    cluster.stop();
  }
}

export function backlogPlanLines(result: BacklogPlans): string[] {
  return [
    `  PostgreSQL, ${result.backlog} due deliveries (seeded in ${result.seedSeconds.toFixed(0)} s): one claim took ${result.claimed}`,
    '    statement                                                        ms     pages',
    ...result.plans.map(
      (p) => `    ${p.statement.padEnd(62)} ${p.ms.toFixed(1).padStart(7)} ${String(p.pages).padStart(8)}`,
    ),
  ];
}

/** The statements' names in the bench's JSON line, by how each begins. */
const NAMES: Array<[prefix: string, name: string]> = [
  ['WITH heads', 'lock_webhooks'],
  ['WITH busy', 'candidates'],
  ['WITH leased', 'lease'],
  ['SELECT count(*) AS n FROM deliveries', 'count_due'],
  ['SELECT d.webhook_id', 'backlog_of'],
];

/** The figures for the bench's JSON line: each claim statement's time and pages, and the gauges'. */
export function backlogPlanFigures(result: BacklogPlans): Record<string, number> {
  const figures: Record<string, number> = { pg_backlog: result.backlog, pg_backlog_claimed: result.claimed };
  for (const plan of result.plans) {
    const name = NAMES.find(([prefix]) => plan.statement.startsWith(prefix))?.[1];
    if (name === undefined) continue;
    figures[`pg_backlog_${name}_ms`] = plan.ms;
    figures[`pg_backlog_${name}_pages`] = plan.pages;
  }
  return figures;
}
