// The count each create makes of an account's webhooks of one kind (the per-account limit) reads an index alone:
// without webhooks_by_account_kind it read every webhook row of the account, and creates slowed as an account grew.
import { COUNT_OF_KIND } from '../../../service/src/store/sqlite/webhooks';
import { useTempDatabase } from '../../support/temp-database';

const temp = useTempDatabase('webhook-count');

test("an account's webhooks of one kind are counted from the (account_id, kind) index, reading no row", () => {
  const plan = temp.db
    .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${COUNT_OF_KIND}`)
    .all(1, 'job')
    .map((row) => row.detail)
    .join('; ');
  expect(plan).toMatch(/SEARCH webhooks USING COVERING INDEX webhooks_by_account_kind \(account_id=\? AND kind=\?\)/);
});
