// What a database's error says: the database itself is in trouble (a full disk, a read-only or corrupt file, an
// I/O error, a PostgreSQL server out of reach), for which the service answers 503 and reports it
// (observability/storage-failures.ts); or it refused what one write holds (a value, a constraint), which is one
// row's fault, and only then is a batch written again row by row (write-apart.ts).

const REASONS: ReadonlyArray<[RegExp, string]> = [
  [/^SQLITE_FULL/, 'the disk is full'],
  [/^SQLITE_READONLY/, 'the database is read-only'],
  [/^SQLITE_(CORRUPT|NOTADB)/, 'the database file is corrupt'],
  [/^SQLITE_(IOERR|CANTOPEN)/, 'the database file cannot be read or written (I/O error)'],
  [/^SQLITE_BUSY/, 'the database is locked by another process'],
  // PostgreSQL's SQLSTATEs, and the socket errors of a server that went away.
  [
    /^(08\d{3}|08P01|57P0[123]|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)$/,
    'the database server cannot be reached',
  ],
  [/^53100$/, 'the disk is full'],
  [/^53300$/, 'the database server has no connection left'],
  [/^25006$/, 'the database is read-only'],
  [/^XX001$/, 'the database file is corrupt'],
];

/** pg's own words when a connection breaks, which carry no code. */
const LOST_CONNECTION = /^(Connection terminated|timeout exceeded when trying to connect)/;

/** The operator's words for a storage failure, or null when the error is not one (a bug, say). */
export function storageFailureReason(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') {
    return error instanceof Error && LOST_CONNECTION.test(error.message)
      ? 'the database server cannot be reached'
      : null;
  }
  return REASONS.find(([pattern]) => pattern.test(code))?.[1] ?? null;
}

/** PostgreSQL's classes of a refused value (22: data exception) or constraint (23), and a trigger's refusal. */
const POSTGRES_ROW_PROBLEM = /^(22|23)[0-9A-Z]{3}$|^P0001$/;
/** SQLite's refusals of what a row holds: a constraint (or a trigger's RAISE), a type, a size, a parameter. */
const SQLITE_ROW_PROBLEM = /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/;

/**
 * True when the error is one row's fault: the database refused a value or a constraint of what was written, or the
 * service's own code failed on one item (an error with no database code). Any other database error (a timeout, a
 * deadlock, memory, the server gone) is the database's state, not the row's: writing the batch again row by row
 * would only meet it once per row.
 */
export function isRowProblem(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return storageFailureReason(error) === null;
  return POSTGRES_ROW_PROBLEM.test(code) || SQLITE_ROW_PROBLEM.test(code);
}
