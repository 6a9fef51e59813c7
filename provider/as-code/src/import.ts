// `import`: the account's webhooks and operational endpoints as a file that `validate` accepts. Those managed in the
// chosen namespace keep their identifiers; unmanaged ones get identifiers made from their names; another
// namespace's are never written (applying them here would duplicate them).
import { type OperationalEndpoint, readMarker, roomForName, type WebhookDetail } from '@jobhooks/client/contract';
import { Document } from 'yaml';
import { byAge } from './remote';

/** What import reads of a webhook or an operational endpoint to choose it. */
interface Importable {
  id: string;
  name: string;
  created_at: string;
}

export interface ImportedWebhook<Item extends Importable = WebhookDetail> {
  identifier: string;
  /** The name as the file writes it (without marker). */
  name: string;
  webhook: Item;
  /** False for a webhook (or endpoint) no file manages yet: `--link` marks it. */
  managed: boolean;
}

export interface ImportChoice {
  namespace: string | null;
  managedOnly: boolean;
}

export function chooseImported<Item extends Importable>(
  remote: readonly Item[],
  choice: ImportChoice,
): Array<ImportedWebhook<Item>> {
  const chosen: Array<ImportedWebhook<Item>> = [];
  const taken = new Set<string>();
  const oldestFirst = [...remote].sort(byAge);
  for (const webhook of oldestFirst) {
    const marked = readMarker(webhook.name);
    if (marked === null || marked.marker.namespace !== choice.namespace || taken.has(marked.marker.identifier))
      continue;
    taken.add(marked.marker.identifier);
    chosen.push({ identifier: marked.marker.identifier, name: marked.name, webhook, managed: true });
  }
  if (choice.managedOnly) return chosen;
  for (const webhook of oldestFirst) {
    if (readMarker(webhook.name) !== null) continue;
    const identifier = unusedIdentifier(identifierFromName(webhook.name), taken);
    taken.add(identifier);
    chosen.push({
      identifier,
      name: nameWithRoomForMarker(webhook.name, choice.namespace, identifier),
      webhook,
      managed: false,
    });
  }
  return chosen;
}

/**
 * A file's text: the schema line for editors, the namespace, and each webhook (then each operational endpoint) with
 * only what differs from the defaults.
 */
export function importedFileText(
  imported: readonly ImportedWebhook[],
  namespace: string | null,
  schemaReference: string,
  endpoints: ReadonlyArray<ImportedWebhook<OperationalEndpoint>> = [],
): string {
  const webhooks: Record<string, Record<string, unknown>> = {};
  for (const { identifier, name, webhook } of imported) {
    webhooks[identifier] = {
      ...describing(name, webhook),
      ...(webhook.job_ids.length > 0 ? { job_ids: webhook.job_ids.map(Number) } : {}),
      ...(webhook.active ? {} : { active: false }),
      ...(webhook.max_requests_per_second !== undefined
        ? { max_requests_per_second: webhook.max_requests_per_second }
        : {}),
    };
  }
  const operational_endpoints: Record<string, Record<string, unknown>> = {};
  for (const { identifier, name, webhook: endpoint } of endpoints) {
    operational_endpoints[identifier] = {
      ...describing(name, endpoint),
      ...(endpoint.active ? {} : { active: false }),
    };
  }
  const maps = endpoints.length === 0 ? { webhooks } : { webhooks, operational_endpoints };
  const document = new Document(namespace === null ? maps : { namespace, ...maps });
  document.commentBefore = ` yaml-language-server: $schema=${schemaReference}`;
  return document.toString({ lineWidth: 0 });
}

/** The fields both kinds have, as a file writes them, in the order `validate`'s schema lists them. */
function describing(name: string, item: { description: string; client_url: string; event_types: readonly string[] }) {
  return {
    name: literal(name),
    ...(item.description !== '' ? { description: literal(item.description) } : {}),
    client_url: literal(item.client_url),
    event_types: item.event_types,
  };
}

/** A text as the files write it: `${` would be read as a variable, so it is written `$${`. */
function literal(text: string): string {
  return text.replaceAll('${', () => '$${');
}

/** The name, cut so that it fits the server's limit once its marker is added. */
function nameWithRoomForMarker(name: string, namespace: string | null, identifier: string): string {
  const room = roomForName({ namespace, identifier });
  return name.length <= room ? name : name.slice(0, room).trimEnd();
}

function identifierFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug === '' ? 'webhook' : slug;
}

function unusedIdentifier(wanted: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let suffix = 2; ; suffix += 1) if (!taken.has(`${wanted}-${suffix}`)) return `${wanted}-${suffix}`;
}
