// `import`: the account's webhooks and operational endpoints as a file; --link marks the unmanaged ones it wrote, so
// that the files manage them from then on.
import { closeSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '@jobhooks/client';
import type { ConnectionFlags } from '../connection';
import { chooseImported, type ImportedWebhook, importedFileText } from '../import';
import type { CliIo } from '../io';
import { markedName, markerKey, type OperationalEndpoint } from '@jobhooks/client/contract';
import { listAllWebhooks } from '../remote';
import { counted } from '../words';
import { approved, type Connected, connect, operationalEndpointsOf, talking } from './shared';

export interface ImportFlags extends ConnectionFlags {
  namespace?: string;
  output?: string;
  managedOnly: boolean;
  link: boolean;
  autoApprove: boolean;
}

/** Where editors find the schema, from a file at the root of a repository that installed the package. */
export const SCHEMA_REFERENCE = './node_modules/@jobhooks/as-code/webhooks.schema.json';

export async function importCommand(flags: ImportFlags, io: CliIo): Promise<number> {
  const namespace = flags.namespace ?? null;
  const connected = connect(flags, io);
  // The output file is made first (and must be new): a file that cannot be written must stop the run before
  // --link renames anything, or the renamed webhooks would be managed by no file.
  const output = flags.output === undefined ? null : newOutputFile(flags.output, io.cwd);
  try {
    const remote = await talking(connected, () => listAllWebhooks(connected.api));
    const remoteEndpoints = await operationalEndpointsOf(connected, false);
    const choice = { namespace, managedOnly: flags.managedOnly };
    const imported = chooseImported(remote, choice);
    const endpoints = chooseImported(remoteEndpoints, choice);
    // Linked before the file is written: a file listing webhooks that are not yet linked would create them again.
    if (flags.link)
      await link(
        [
          ...imported.filter((entry) => !entry.managed).map((entry) => webhookRename(entry, namespace, connected)),
          ...endpoints.filter((entry) => !entry.managed).map((entry) => endpointRename(entry, namespace, connected)),
        ],
        flags.autoApprove,
        connected,
        io,
      );
    const text = importedFileText(imported, namespace, SCHEMA_REFERENCE, endpoints);
    if (output === null) io.stdout(text);
    else {
      writeFileSync(output.fd, text);
      const more = endpoints.length > 0 ? ` and ${counted(endpoints.length, 'operational endpoint')}` : '';
      io.stderr(`Wrote ${counted(imported.length, 'webhook')}${more} to ${flags.output}.\n`);
    }
  } catch (error) {
    if (output !== null) rmSync(output.path, { force: true });
    throw error;
  } finally {
    if (output !== null) closeSync(output.fd);
  }
  return 0;
}

function newOutputFile(name: string, cwd: string): { fd: number; path: string } {
  if (name === '') throw new CliError('--output needs a file name.');
  const path = resolve(cwd, name);
  try {
    return { fd: openSync(path, 'wx'), path };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new CliError(`--output ${name} exists; import writes a new file only (remove it or name another).`);
    throw new CliError(
      `--output ${name} cannot be written (${code ?? (error as Error).message}); nothing was renamed.`,
    );
  }
}

/** A rename --link makes: what it is, from which name to which, and the request that makes it. */
interface Rename {
  id: string;
  from: string;
  to: string;
  /** How the line after the rename names it: `key` or `operational endpoint key`. */
  linked: string;
  rename(): Promise<unknown>;
}

async function link(renames: Rename[], autoApprove: boolean, connected: Connected, io: CliIo) {
  if (renames.length === 0) return;
  io.stderr(
    `--link renames ${counted(renames.length, 'webhook')} on the server so that the files manage ${renames.length === 1 ? 'it' : 'them'}:\n`,
  );
  for (const rename of renames)
    io.stderr(`  ${rename.id}: ${JSON.stringify(rename.from)} -> ${JSON.stringify(rename.to)}\n`);
  if (!(await approved(autoApprove, 'Rename them?', io)))
    throw new CliError('Import cancelled; nothing was renamed or written.');
  for (const rename of renames) {
    await talking(connected, rename.rename);
    io.stderr(`linked ${rename.linked} (${rename.id})\n`);
  }
}

// A full replacement with the item's own values and the marked name: nothing else changes (the same URL and active
// flag leave an archived webhook or endpoint archived).

function webhookRename(entry: ImportedWebhook, namespace: string | null, connected: Connected): Rename {
  const { webhook } = entry;
  const to = markedName(entry.name, { namespace, identifier: entry.identifier });
  return {
    id: webhook.id,
    from: webhook.name,
    to,
    linked: markerKey({ namespace, identifier: entry.identifier }),
    rename: () =>
      connected.api.update(webhook.id, {
        name: to,
        description: webhook.description,
        client_url: webhook.client_url,
        event_types: webhook.event_types,
        job_ids: webhook.job_ids.map(Number),
        active: webhook.active,
        // jobhooks' own; a server without it (dbt Cloud) gives none, and none is sent.
        ...(webhook.max_requests_per_second === undefined
          ? {}
          : { max_requests_per_second: webhook.max_requests_per_second }),
      }),
  };
}

function endpointRename(
  entry: ImportedWebhook<OperationalEndpoint>,
  namespace: string | null,
  connected: Connected,
): Rename {
  const { webhook: endpoint } = entry;
  const to = markedName(entry.name, { namespace, identifier: entry.identifier });
  return {
    id: endpoint.id,
    from: endpoint.name,
    to,
    linked: `operational endpoint ${markerKey({ namespace, identifier: entry.identifier })}`,
    rename: () =>
      connected.api.operationalEndpoints.update(endpoint.id, {
        name: to,
        description: endpoint.description,
        client_url: endpoint.client_url,
        event_types: endpoint.event_types,
        active: endpoint.active,
      }),
  };
}
