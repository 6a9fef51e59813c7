// When the database itself is in trouble (a full disk, a read-only or corrupt file, an I/O error, a PostgreSQL
// server out of reach), as opposed to refusing what one write holds: the first is no one row's fault, so a batch
// is not written again row by row, and the service answers 503 and reports it (observability/storage-failures.ts).

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
