// Noticing other connections' commits: one read of PRAGMA data_version serves every check for 1 ms.
import { openDatabase, type SqliteDatabase } from '../../../service/src/store/sqlite/database';
import { LOOK_REUSE_MS, observeOtherConnections } from '../../../service/src/store/sqlite/other-connections';
import { createSqliteStore } from '../../../service/src/store/sqlite/sqlite-store';
import { insertAccountWithWebhook, useTempDatabase } from '../../support/temp-database';

const temp = useTempDatabase('other-connections');
let db: SqliteDatabase;
let nowMs: number;
beforeEach(() => {
  db = temp.db;
  db.exec('CREATE TABLE notes (text TEXT)');
  nowMs = 1000;
});

function commitElsewhere(): void {
  const other = openDatabase(temp.path);
  try {
    other.prepare("INSERT INTO notes VALUES ('from another process')").run();
  } finally {
    other.close();
  }
}

test('a commit of another connection is seen by the first check made 1 ms or more after the last read', () => {
  const committedElsewhere = observeOtherConnections(db, () => nowMs).newCheck();
  expect(committedElsewhere()).toBe(true);
  expect(committedElsewhere()).toBe(false);
  commitElsewhere();
  // Within the millisecond, the last read still answers: the documented bound.
  nowMs += LOOK_REUSE_MS - 0.01;
  expect(committedElsewhere()).toBe(false);
  nowMs += 0.01;
  expect(committedElsewhere()).toBe(true);
  expect(committedElsewhere()).toBe(false);
});

test("this connection's own commits are never counted", () => {
  const committedElsewhere = observeOtherConnections(db, () => nowMs).newCheck();
  committedElsewhere();
  db.prepare("INSERT INTO notes VALUES ('from here')").run();
  nowMs += 10;
  expect(committedElsewhere()).toBe(false);
});

test('checks share each read, and each keeps its own last look', () => {
  const prepare = jest.spyOn(db, 'prepare');
  const others = observeOtherConnections(db, () => nowMs);
  const statement = prepare.mock.results[0]!.value as { get: () => unknown };
  prepare.mockRestore();
  const reads = jest.spyOn(statement, 'get');
  const first = others.newCheck();
  const second = others.newCheck();
  expect([first(), second()]).toEqual([true, true]);
  expect(reads).toHaveBeenCalledTimes(1);

  commitElsewhere();
  nowMs += LOOK_REUSE_MS;
  expect(first()).toBe(true);
  expect(reads).toHaveBeenCalledTimes(2);
  // The second check has not answered since the commit: it sees it from the shared read.
  expect(second()).toBe(true);
  expect(reads).toHaveBeenCalledTimes(2);
});

test("the service store reads other connections' commits once for its token and webhook caches alike", async () => {
  insertAccountWithWebhook(db, 1);
  db.prepare(
    "INSERT INTO api_tokens (id, account_id, name, permission_set, token_hash, created_at) VALUES ('tok_1', 1, 't', 'Account Admin', 'hash', 0)",
  ).run();
  const store = createSqliteStore(temp.path, () => nowMs);
  try {
    const nameOf = async () => (await store.webhooks.get(1, 'wsu_a'))?.name;
    expect(await nameOf()).toBe('before');
    // A request: its token is looked up (reading data_version), then another process commits, then the
    // request reads its webhook within the millisecond. The webhook cache uses the token's read.
    nowMs += 5;
    expect(await store.apiTokens.findActiveByHash('hash')).not.toBeNull();
    db.prepare("UPDATE webhooks SET name = 'changed elsewhere' WHERE id = 'wsu_a'").run();
    nowMs += LOOK_REUSE_MS / 2;
    expect(await nameOf()).toBe('before');
    nowMs += LOOK_REUSE_MS / 2;
    expect(await nameOf()).toBe('changed elsewhere');
  } finally {
    await store.close();
  }
});
