// Where a delivery's bytes live: the run data every webhook of an event shares is stored once, on the event;
// each delivery row keeps only its own head. Rows written before that layout still send their whole bytes.
import Database from 'better-sqlite3';
import { createWebhook, type Harness, startHarness } from '../../support/harness';
import { ingest } from '../../support/events';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  // Nothing is sent here: the test reads what ingestion stored and what a claim hands the dispatcher.
  await h.service.dispatcher.stop(0);
});
afterEach(() => h.close());

const claimAll = () =>
  h.service.store.deliveries.claimDue(
    {
      owner: 'test',
      now: Number.MAX_SAFE_INTEGER,
      leaseUntil: Number.MAX_SAFE_INTEGER,
      perWebhook: 100,
      excludeWebhookIds: [],
    },
    (candidates) => candidates,
  );

test("three webhooks' deliveries of one event store the run data once, and a claim returns each one's whole bytes", async () => {
  const hooks = [];
  for (const name of ['a', 'b', 'c'])
    hooks.push(
      await createWebhook(h, {
        name,
        client_url: `http://127.0.0.1:9/${name}`,
        event_types: ['job.run.completed'],
        job_ids: [],
      }),
    );
  const { event_id } = await ingest(h, 'job.run.completed', {
    runId: 'run-with-a-long-reason',
    runReason: 'r'.repeat(500),
  });

  const db = new Database(h.dbPath, { readonly: true });
  try {
    const tail = db
      .prepare<[string], { payload_tail: Buffer }>('SELECT payload_tail FROM events WHERE id = ?')
      .get(event_id)!.payload_tail;
    expect(tail.toString('utf8')).toContain('r'.repeat(500));
    const heads = db
      .prepare<[string], { payload: Buffer }>('SELECT payload FROM deliveries WHERE event_id = ?')
      .all(event_id);
    expect(heads).toHaveLength(3);
    for (const { payload } of heads) {
      expect(payload.toString('utf8')).not.toContain('run-with-a-long-reason');
      expect(payload.length).toBeLessThan(300);
    }
  } finally {
    db.close();
  }

  const claimed = await claimAll();
  expect(claimed.map((delivery) => delivery.webhookId).sort()).toEqual(hooks.map((hook) => hook.id).sort());
  for (const delivery of claimed) {
    const sent = JSON.parse(delivery.payload.toString('utf8'));
    expect(sent.webhookId).toBe(delivery.webhookId);
    expect(sent.eventId).toBe(event_id);
    expect(sent.data.runReason).toBe('r'.repeat(500));
  }
});

test('a delivery stored before the split (whole bytes, an event without a tail) is sent with exactly those bytes', async () => {
  const hook = await createWebhook(h, {
    client_url: 'http://127.0.0.1:9/old',
    event_types: ['job.run.completed'],
    job_ids: [],
  });
  const whole = Buffer.from('{"accountId":1,"webhookId":"old layout","data":{"runId":"7"}}', 'utf8');
  const db = new Database(h.dbPath);
  try {
    db.prepare(
      "INSERT INTO events (id, account_id, event_type, run_id, created_at) VALUES ('wev_old', 1, 'job.run.completed', '7', 0)",
    ).run();
    db.prepare(
      `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, next_attempt_at, created_at, updated_at)
       VALUES ('wdl_old', 'wev_old', ?, 'pending', ?, 0, 0, 0)`,
    ).run(hook.id, whole);
  } finally {
    db.close();
  }
  const [claimed] = await claimAll();
  expect(claimed!.id).toBe('wdl_old');
  expect(claimed!.payload.equals(whole)).toBe(true);
});

test('an event no webhook wants is kept without a payload (only to recognise a duplicate)', async () => {
  const { event_id, deliveries } = await ingest(h, 'job.run.started', { runId: 'nobody-listens' });
  expect(deliveries).toBe(0);
  const db = new Database(h.dbPath, { readonly: true });
  try {
    expect(
      db
        .prepare<[string], { payload_tail: Buffer | null }>('SELECT payload_tail FROM events WHERE id = ?')
        .get(event_id)!.payload_tail,
    ).toBeNull();
  } finally {
    db.close();
  }
});
