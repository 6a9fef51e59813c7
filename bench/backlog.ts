// The cost of a backlog: the service restarted on a database holding N due deliveries (written straight into
// SQLite, as a long outage of the receivers would leave them), then deliveries per second while it drains,
// and the service's peak RSS.
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { BenchReceiver, SignedRequest } from './receiver';

/** One captured delivery per webhook: its path (for the secret) and a body to vary per event. */
export interface BacklogTemplate {
  webhookId: string;
  request: SignedRequest;
}

/**
 * Inserts `count` pending deliveries due now, spread over the templates' webhooks, in one transaction, in the
 * layout ingestion writes: each event holds the run data all its webhooks share (the first template's, with its
 * own run id), each delivery only its head. `label` keeps the events of one fill apart from another's.
 */
export function fillBacklog(
  databasePath: string,
  templates: BacklogTemplate[],
  count: number,
  accountId: number,
  label: number,
): void {
  const db = new Database(databasePath);
  db.pragma('journal_mode = WAL');
  const nowMicros = Date.now() * 1000;
  const insertEvent = db.prepare(
    `INSERT INTO events (id, account_id, event_type, run_id, created_at, payload_tail)
     VALUES (?, ?, 'job.run.completed', ?, ?, ?)`,
  );
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, 'pending', ?, 0, ?, ?, ?)`,
  );
  const bodies = templates.map(
    (template) => JSON.parse(template.request.body.toString('utf8')) as { eventId: string; data: { runId: string } },
  );
  // "data" is the payload's last field: a head is the body without it, ending in `,"data":`.
  const headOf = ({ data: _data, ...head }: { eventId: string; data: unknown }) =>
    Buffer.from(`${JSON.stringify(head).slice(0, -1)},"data":`);
  db.transaction(() => {
    const events = Math.ceil(count / templates.length);
    for (let event = 0; event < events; event += 1) {
      const eventId = `bev_backlog_${label}_${event}`;
      const runId = `${label}-${event}`;
      insertEvent.run(
        eventId,
        accountId,
        runId,
        nowMicros,
        Buffer.from(`${JSON.stringify({ ...bodies[0]!.data, runId })}}`),
      );
      for (let t = 0; t < templates.length && event * templates.length + t < count; t += 1) {
        const head = headOf({ ...bodies[t]!, eventId });
        insertDelivery.run(
          `bdl_${label}_${event}_${t}`,
          eventId,
          templates[t]!.webhookId,
          head,
          nowMicros,
          nowMicros,
          nowMicros,
        );
      }
    }
  })();
  db.close();
}

/** The process's peak resident set (VmHWM) in MB, from /proc. */
export function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM for process ${pid}`);
  return Number(match[1]) / 1024;
}

/**
 * Deliveries per second arriving at the receiver over `seconds`, counted from the first arrival. A backlog of
 * `size` that runs out before the window ends would understate the rate, so that fails the run.
 */
export async function drainRate(
  receiver: BenchReceiver,
  seconds: number,
  size: number,
  timeoutMs = 120_000,
): Promise<number> {
  const before = receiver.delivered();
  const deadline = Date.now() + timeoutMs;
  while (receiver.delivered() === before) {
    if (Date.now() > deadline) throw new Error('the backlog did not start draining');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const started = receiver.delivered();
  const startedAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const drained = receiver.delivered() - started;
  if (receiver.delivered() - before >= size)
    throw new Error(`the ${size}-delivery backlog ran out within the ${seconds} s window`);
  return drained / ((performance.now() - startedAt) / 1000);
}
