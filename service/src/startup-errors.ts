// An operator's mistake at start-up, told in one sentence that names the setting to change: a busy port, a
// HOST that is not this machine's, a JOBHOOKS_DB that is not a database or cannot be created. Anything else
// is left as it is (a bug deserves its stack trace).
import { basename } from 'node:path';
import { ConfigurationError } from './core/errors';
import { CONNECT_TIMEOUT_MS } from './store/postgres/database';

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Why opening the database at `path` failed, as the operator can act on it, or null. */
export function databaseStartupError(error: unknown, path: string): string | null {
  const code = codeOf(error);
  // The key file beside the database fails with the same file-system codes: name it, not JOBHOOKS_DB.
  const failedPath = (error as { path?: unknown } | null)?.path;
  if (typeof failedPath === 'string' && basename(failedPath) === 'secret.key') {
    return `The key file ${failedPath} cannot be read or created (${String(code)}): fix its permissions, or set JOBHOOKS_SECRET_KEY.`;
  }
  if (code === 'SQLITE_READONLY' || code === 'SQLITE_READONLY_DIRECTORY')
    return `JOBHOOKS_DB names ${path}, which can be read but not written (${code}): make it and its folder writable by this user, or set JOBHOOKS_DB to a file in a writable folder.`;
  if (code === 'SQLITE_NOTADB')
    return `JOBHOOKS_DB names ${path}, which is not a SQLite database: point JOBHOOKS_DB at the jobhooks database, or at a new file.`;
  if (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))
    return `The database ${path} (JOBHOOKS_DB) is corrupt (${messageOf(error)}): restore it from a backup.`;
  if (['SQLITE_CANTOPEN', 'EACCES', 'EPERM', 'ENOTDIR', 'EEXIST', 'EISDIR', 'EROFS', 'ENOENT'].includes(String(code))) {
    return `JOBHOOKS_DB names ${path}, which cannot be created or opened (${String(code)}): set JOBHOOKS_DB to a file in a writable folder.`;
  }
  return null;
}

/** Where a PostgreSQL URL points, without its password: "host:port/database". */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const socket = parsed.searchParams.get('host');
    return `${socket ?? parsed.host}${parsed.pathname}`;
  } catch {
    return 'an unreadable URL';
  }
}

/** SQLSTATEs of a connection PostgreSQL refused, as the operator can act on them. */
const POSTGRES_REFUSALS: Record<string, string> = {
  '28P01': 'the password was refused',
  '28000': 'the user may not connect',
  '3D000': 'the database does not exist',
  '42501': 'the user lacks a privilege the schema needs (CREATE on the database)',
  '57P03': 'the server is starting up or shutting down',
  '53300': 'the server has no connection left (max_connections)',
};

/** Why connecting to PostgreSQL failed, as the operator can act on it, or null; `setting` is where the URL came from. */
export function postgresStartupError(error: unknown, url: string, setting = 'JOBHOOKS_DATABASE_URL'): string | null {
  const code = String(codeOf(error));
  const where = describePostgresUrl(url);
  const refusal = POSTGRES_REFUSALS[code];
  if (refusal !== undefined)
    return `PostgreSQL at ${where} refused the connection: ${refusal}. Fix ${setting} or the server.`;
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENOENT', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET'].includes(code)) {
    return `PostgreSQL at ${where} cannot be reached (${code}): check ${setting} and that the server runs.`;
  }
  // pg's own errors carry no code (a server's carry its SQLSTATE, such as 57014 for a statement timeout): told apart
  // by their words.
  const message = codeOf(error) === undefined ? messageOf(error) : '';
  if (
    /^timeout expired$|Connection terminated due to connection timeout|timeout exceeded when trying to connect/i.test(
      message,
    )
  )
    return `PostgreSQL at ${where} did not answer within ${CONNECT_TIMEOUT_MS / 1000} s: check ${setting}, and that the server runs and takes connections.`;
  if (/does not support SSL/i.test(message))
    return `PostgreSQL at ${where} does not accept TLS, which ${setting} asks for (sslmode): remove sslmode, or turn TLS on in the server.`;
  if (/Connection terminated unexpectedly/i.test(message))
    return `PostgreSQL at ${where} closed the connection before it was ready: check that ${setting} points at PostgreSQL, and the server's log.`;
  return null;
}

/** Why listening on host:port failed, as the operator can act on it, or null. */
export function listenStartupError(error: unknown, host: string, port: number): string | null {
  const code = codeOf(error);
  if (code === 'EADDRINUSE')
    return `Port ${port} on ${host} is already in use: stop the other process, or set PORT to a free port (PORT=0 picks one).`;
  if (code === 'EACCES')
    return `Listening on port ${port} needs privileges this process does not have: set PORT to 1024 or above.`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') {
    return `HOST "${host}" is not an address of this machine (${String(code)}): set HOST to one, such as 127.0.0.1 or 0.0.0.0.`;
  }
  return null;
}

/** Runs one start-up step, turning an operator's mistake into a ConfigurationError with its sentence. */
export async function startupStep<T>(step: () => Promise<T>, explain: (error: unknown) => string | null): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const sentence = explain(error);
    throw sentence === null ? error : new ConfigurationError(sentence);
  }
}
