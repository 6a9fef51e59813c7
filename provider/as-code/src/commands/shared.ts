// Steps more than one command takes: reading the files, connecting, planning, asking before a change.
import { ApiError, CliError, type WebhooksClient } from '@jobhooks/client';
import type { OperationalEndpoint } from '@jobhooks/client/contract';
import { clientOf, type Connection, connectionFrom, type ConnectionFlags, describeApiFailure } from '../connection';
import type { CliIo } from '../io';
import { type Declaration, loadDeclarations } from '../load-declarations';
import { type Plan, planChanges } from '../plan';
import { formatProblem } from '../problem';
import { listAllOperationalEndpoints, listAllWebhooks } from '../remote';
import { counted } from '../words';

/** The declaration, or a CliError after printing every problem of the files. */
export async function declarationOrProblems(files: string[], io: CliIo): Promise<Declaration> {
  const loaded = await loadDeclarations(files, io.cwd, io.env);
  if (loaded.declaration !== null) return loaded.declaration;
  for (const problem of loaded.problems) io.stderr(`${formatProblem(problem)}\n`);
  const count = loaded.problems.length;
  throw new CliError(`${counted(count, 'problem')} in the files; nothing was sent to the server.`);
}

export interface Connected {
  connection: Connection;
  api: WebhooksClient;
}

export function connect(flags: ConnectionFlags, io: CliIo): Connected {
  const connection = connectionFrom(flags, io.env);
  return { connection, api: clientOf(connection, (line) => io.stderr(line)) };
}

/** Runs API calls, turning a refusal into the one sentence that says what to check. */
export async function talking<T>(
  connected: Connected,
  work: () => Promise<T>,
  options: { passing?: (error: unknown) => boolean } = {},
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // `passing`: errors the caller handles itself.
    if (error instanceof CliError || options.passing?.(error)) throw error;
    throw new CliError(describeApiFailure(error, connected.connection));
  }
}

export async function planFor(declaration: Declaration, connected: Connected): Promise<Plan> {
  // Files without `webhooks`, or without `operational_endpoints`, leave those alone: the server is not asked.
  const remote =
    declaration.webhooks === undefined ? [] : await talking(connected, () => listAllWebhooks(connected.api));
  const endpoints = declaration.operationalEndpoints === undefined ? [] : await operationalEndpointsOf(connected, true);
  return planChanges(declaration, remote, endpoints);
}

/**
 * The account's operational endpoints. A server without them (dbt Cloud answers 404) has none: for import, an
 * empty list; for files that manage them (`declared`), a mistake in the files or the connection.
 */
export async function operationalEndpointsOf(connected: Connected, declared: boolean): Promise<OperationalEndpoint[]> {
  try {
    return await talking(connected, () => listAllOperationalEndpoints(connected.api), { passing: isNotFound });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    if (!declared) return [];
    throw new CliError(
      `${connected.connection.hostUrl} has no operational endpoints (they are jobhooks' own, not dbt Cloud's); remove "operational_endpoints" from the files to use this server.`,
    );
  }
}

const isNotFound = (error: unknown) => error instanceof ApiError && error.status === 404;

/**
 * True to go ahead: `--auto-approve`, or "yes" typed on a terminal. With neither a terminal nor `--auto-approve`
 * nothing changes, and the error says why.
 */
export async function approved(autoApprove: boolean, question: string, io: CliIo): Promise<boolean> {
  if (autoApprove) return true;
  if (!io.interactive)
    throw new CliError(
      'Nothing was changed: this is not a terminal to ask on; pass --auto-approve to go ahead without asking (as in CI).',
    );
  const answer = await io.ask(`${question} Only "yes" goes ahead: `);
  return answer.trim() === 'yes';
}
