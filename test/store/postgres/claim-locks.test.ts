// A claim on PostgreSQL counts another instance's leases in flight only after it holds the webhooks' advisory
// locks: in a statement that starts once the locks are taken, so its snapshot holds every lease of a claim that
// had the lock before. Read in the statement that takes the locks, a claim that commits between that statement's
// snapshot and its lock goes uncounted, and the webhook's in-flight limit is overshot. The window is inside one
// statement and cannot be timed from outside, so the test checks the order of the statements.
import pg from 'pg';
import { useSuiteCluster } from '../../support/postgres';
import { openTestStore, type TestStore } from '../../support/stores';
import { accountWithWebhooks, claimAll, event, recordEvent, T0 } from '../contract/fixtures';

useSuiteCluster();

let opened: TestStore;
beforeEach(async () => {
  opened = await openTestStore('postgres');
  await accountWithWebhooks(opened.store, 1, ['wh_a']);
  await recordEvent(opened.store, event(1, 'wev_1'));
});
afterEach(() => opened.close());

const textOf = (query: unknown): string =>
  typeof query === 'string' ? query : String((query as { text?: unknown } | null)?.text ?? '');

test("the in-flight count is read by a statement after the one that took the webhooks' locks", async () => {
  const query = jest.spyOn(pg.Client.prototype, 'query');
  let sent: string[];
  try {
    const claimed = await claimAll(opened.store, T0);
    expect(claimed.map((c) => c.webhookId)).toEqual(['wh_a']);
    sent = query.mock.calls.map(([text]) => textOf(text));
  } finally {
    query.mockRestore();
  }
  const locking = sent.findIndex((text) => text.includes('pg_try_advisory_xact_lock'));
  const counting = sent.findIndex((text) => text.includes('lease_owner IS NOT NULL'));
  expect(locking).toBeGreaterThanOrEqual(0);
  expect(counting).toBeGreaterThan(locking);
  expect(sent[locking]).not.toContain('lease_owner IS NOT NULL');
});
