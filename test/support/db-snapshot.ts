// Reads every row of every table of a SQLite file, so a test can assert that a request changed nothing.
import Database from 'better-sqlite3';

export function snapshotDatabase(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all();
    const dump: Record<string, unknown[]> = {};
    for (const { name } of tables) dump[name] = db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all();
    return JSON.stringify(dump, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('hex') : value));
  } finally {
    db.close();
  }
}
