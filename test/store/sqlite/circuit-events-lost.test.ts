// On SQLite the circuit's events are written after their results' commit, in a transaction of their own: a write
// that fails then (a full disk) loses them, and the loss is reported, not thrown and not silent.
import { fakeOperationalEventMaker } from '../../support/operational-event-maker';
import { type EndpointHealth, UNKNOWN_ENDPOINT } from '../../../service/src/domain/endpoint-health';
import { createInProcessEndpointHealth } from '../../../service/src/store/sqlite/endpoint-health';
import { insertAccountWithWebhook, useTempDatabase } from '../../support/temp-database';

const temp = useTempDatabase('circuit-events-lost');

const opened: EndpointHealth = {
  ...UNKNOWN_ENDPOINT,
  heard: true,
  sickInARow: 5,
  opens: 1,
  circuit: { state: 'open', since: 1_000, until: 31_000_000 },
};

test('a circuit event whose write fails is reported with its error, and the health still moves', () => {
  const { db } = temp;
  insertAccountWithWebhook(db, 1);
  db.prepare(
    `INSERT INTO webhooks (id, account_id, kind, name, description, client_url, event_types, job_ids, active, sealed_secret, created_at, updated_at)
     VALUES ('wsu_ops', 1, 'operational', 'On-call', '', 'http://127.0.0.1:9/', '["webhook.circuit_opened"]', '[]', 1, 'v1:x', 0, 0)`,
  ).run();
  // The disk refuses the event's row, as a full one would.
  db.exec("CREATE TRIGGER refuse BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
  const lost: unknown[] = [];
  const health = createInProcessEndpointHealth(db, (error) => lost.push(error));
  const maker = fakeOperationalEventMaker({ fill: 1 });

  health.applyDeferred([['wsu_a', () => opened]], maker);

  expect(lost).toHaveLength(1);
  expect(String(lost[0])).toContain('database or disk is full');
  expect(health.of('wsu_a').circuit.state).toBe('open');
  expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 0 });
});
