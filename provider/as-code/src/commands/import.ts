// `import`: the account's webhooks as a webhooks file; --link marks the unmanaged ones it wrote, so that the files
// manage them from then on.
import { closeSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '@jobhooks/client';
import type { ConnectionFlags } from '../connection';
import { chooseImported, type ImportedWebhook, importedFileText } from '../import';
import type { CliIo } from '../io';
import { markedName, markerKey } from '@jobhooks/client/contract';
import { listAllWebhooks } from '../remote';
import { counted } from '../words';
import { approved, type Connected, connect, talking } from './shared';

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
    const imported = chooseImported(remote, { namespace, managedOnly: flags.managedOnly });
    // Linked before the file is written: a file listing webhooks that are not yet linked would create them again.
    if (flags.link)
      await link(
        imported.filter((entry) => !entry.managed),
        namespace,
        flags.autoApprove,
        connected,
        io,
      );
    const text = importedFileText(imported, namespace, SCHEMA_REFERENCE);
    if (output === null) io.stdout(text);
    else {
      writeFileSync(output.fd, text);
      io.stderr(`Wrote ${counted(imported.length, 'webhook')} to ${flags.output}.\n`);
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

async function link(
  unmanaged: ImportedWebhook[],
  namespace: string | null,
  autoApprove: boolean,
  connected: Connected,
  io: CliIo,
) {
  if (unmanaged.length === 0) return;
  io.stderr(
    `--link renames ${counted(unmanaged.length, 'webhook')} on the server so that the files manage ${unmanaged.length === 1 ? 'it' : 'them'}:\n`,
  );
  for (const entry of unmanaged)
    io.stderr(
      `  ${entry.webhook.id}: ${JSON.stringify(entry.webhook.name)} -> ${JSON.stringify(linkedName(entry, namespace))}\n`,
    );
  if (!(await approved(autoApprove, 'Rename them?', io)))
    throw new CliError('Import cancelled; nothing was renamed or written.');
  for (const entry of unmanaged) {
    const { webhook } = entry;
    // A full replacement with the webhook's own values and the marked name: nothing else changes (the same URL and
    // active flag leave an archived webhook archived).
    await talking(connected, () =>
      connected.api.update(webhook.id, {
        name: linkedName(entry, namespace),
        description: webhook.description,
        client_url: webhook.client_url,
        event_types: webhook.event_types,
        job_ids: webhook.job_ids.map(Number),
        active: webhook.active,
      }),
    );
    io.stderr(`linked ${markerKey({ namespace, identifier: entry.identifier })} (${webhook.id})\n`);
  }
}

const linkedName = (entry: ImportedWebhook, namespace: string | null) =>
  markedName(entry.name, { namespace, identifier: entry.identifier });
