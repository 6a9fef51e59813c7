// What apply would do: the declared webhooks and operational endpoints against the account's, as create / update /
// reactivate / delete. Pure: it sees only the declaration and the lists, and touches only what is marked with the
// files' namespace. One machinery for both kinds: they differ only in the fields compared.
import { outputTime } from '@jobhooks/client';
import {
  markedName,
  type Marker,
  markerKey,
  type OperationalEndpoint,
  readMarker,
  type WebhookDetail,
} from '@jobhooks/client/contract';
import type { DeclaredEndpointValues, DeclaredValues } from './declaration';
import type { Declaration, DeclaredEntry } from './load-declarations';
import { byAge } from './remote';

export type FieldName = keyof DeclaredValues;

export interface FieldChange {
  field: FieldName;
  old: unknown;
  new: unknown;
}

/** A change of one declared thing; `webhookId` is the server's id of the webhook or operational endpoint. */
export type ChangeOf<Values> =
  | { action: 'create'; key: string; values: Values }
  | {
      action: 'update' | 'reactivate';
      key: string;
      webhookId: string;
      fields: FieldChange[];
      values: Values;
      currentUrl: string;
    }
  | { action: 'delete'; key: string; webhookId: string; name: string; reason: 'removed' | 'duplicate' };

/** A webhook's change has no `kind` (webhooks were the tool's only kind); an operational endpoint's says so. */
export type PlannedChange =
  | (ChangeOf<DeclaredValues> & { kind?: undefined })
  | (ChangeOf<DeclaredEndpointValues> & { kind: 'operational_endpoint' });

/** How plans and messages name what a change is about: a webhook by its key, an operational endpoint as such. */
export function subjectOf(change: { kind?: 'operational_endpoint' | undefined; key: string }): string {
  return change.kind === 'operational_endpoint' ? `operational endpoint ${change.key}` : change.key;
}

/**
 * The key of a secret in --secrets-out and on the terminal: a webhook's key, or `operational_endpoints:` and an
 * endpoint's key (identifiers have no ":", so an endpoint and a webhook of the same identifier never share one).
 */
export function secretKey(change: { kind?: 'operational_endpoint' | undefined; key: string }): string {
  return change.kind === 'operational_endpoint' ? `operational_endpoints:${change.key}` : change.key;
}

export type Action = PlannedChange['action'];
export const ACTIONS: readonly Action[] = ['create', 'update', 'reactivate', 'delete'];

export interface PlanWarning {
  key: string;
  webhookId: string;
  message: string;
  kind?: 'operational_endpoint';
}

export interface Plan {
  namespace: string | null;
  /** In the order apply makes them: creates, updates, reactivations, deletes. */
  changes: PlannedChange[];
  warnings: PlanWarning[];
  /** Declared webhooks and operational endpoints that already match. */
  unchanged: number;
  /** How many of `unchanged` are webhooks; omitted when the files leave webhooks alone (no `webhooks` key). */
  unchangedWebhooks?: number;
  /** How many of `unchanged` are operational endpoints; omitted when the files leave them alone. */
  unchangedOperationalEndpoints?: number;
}

/** The server's side of a declared thing, as the plan reads it: a webhook and an operational endpoint both have it. */
type Managed = Pick<
  WebhookDetail,
  'id' | 'name' | 'client_url' | 'created_at' | 'http_status_code' | 'archived' | 'archived_at' | 'archived_reason'
>;

/** What tells the kinds apart in a plan: the fields compared. */
type CompareFields<Values, Remote> = (declared: Values, current: Remote, currentName: string) => FieldChange[];

/**
 * `values` in a planned change carry the name the server will hold, marker included; `fields` show the names as
 * the files write them.
 */
export function planChanges(
  declaration: Declaration,
  remote: readonly WebhookDetail[],
  remoteEndpoints: readonly OperationalEndpoint[] = [],
): Plan {
  const { namespace } = declaration;
  // Files without `webhooks`, or without `operational_endpoints`, leave those alone, whatever the server has.
  const managesWebhooks = declaration.webhooks !== undefined;
  const webhooks = planKind(namespace, declaration.webhooks ?? [], managesWebhooks ? remote : [], changedFields);
  const kind = 'operational_endpoint' as const;
  const managesEndpoints = declaration.operationalEndpoints !== undefined;
  const endpoints = planKind(
    namespace,
    declaration.operationalEndpoints ?? [],
    managesEndpoints ? remoteEndpoints : [],
    changedEndpointFields,
  );
  // Stable: within an action, webhooks first.
  const changes: PlannedChange[] = [...webhooks.changes, ...endpoints.changes.map((change) => ({ ...change, kind }))];
  changes.sort((a, b) => ACTIONS.indexOf(a.action) - ACTIONS.indexOf(b.action));
  return {
    namespace,
    changes,
    warnings: [...webhooks.warnings, ...endpoints.warnings.map((warning) => ({ ...warning, kind }))],
    unchanged: webhooks.unchanged + endpoints.unchanged,
    ...(managesWebhooks ? { unchangedWebhooks: webhooks.unchanged } : {}),
    ...(managesEndpoints ? { unchangedOperationalEndpoints: endpoints.unchanged } : {}),
  };
}

/** The plan of one kind: its declared entries against its list on the server. */
function planKind<Values extends { name: string; active: boolean }, Remote extends Managed>(
  namespace: string | null,
  entries: ReadonlyArray<DeclaredEntry<Values>>,
  remote: readonly Remote[],
  compare: CompareFields<Values, Remote>,
): { changes: Array<ChangeOf<Values>>; warnings: PlanWarning[]; unchanged: number } {
  const managed = managedBy(remote, namespace);
  const changes: Array<ChangeOf<Values>> = [];
  const warnings: PlanWarning[] = [];
  let unchanged = 0;
  for (const entry of entries) {
    const marker: Marker = { namespace, identifier: entry.identifier };
    const key = markerKey(marker);
    const values = { ...entry.values, name: markedName(entry.values.name, marker) };
    const [current, ...duplicates] = managed.get(entry.identifier) ?? [];
    managed.delete(entry.identifier);
    for (const duplicate of duplicates) changes.push(deletion(key, duplicate, 'duplicate'));
    if (current === undefined) {
      changes.push({ action: 'create', key, values });
      continue;
    }
    const fields = compare(entry.values, current, readMarker(current.name)?.name ?? current.name);
    const reactivate = current.archived === true && entry.values.active;
    if (fields.length === 0) unchanged += 1;
    else
      changes.push({
        action: reactivate ? 'reactivate' : 'update',
        key,
        webhookId: current.id,
        fields,
        values,
        currentUrl: current.client_url,
      });
    warnings.push(...warningsOf(key, current, reactivate));
  }
  for (const [identifier, leftOver] of managed)
    for (const item of leftOver) changes.push(deletion(markerKey({ namespace, identifier }), item, 'removed'));
  return { changes, warnings, unchanged };
}

/** What is marked with this namespace, by identifier, oldest first (the oldest is the one kept). */
function managedBy<Remote extends Managed>(remote: readonly Remote[], namespace: string | null): Map<string, Remote[]> {
  const byIdentifier = new Map<string, Remote[]>();
  const oldestFirst = [...remote].sort(byAge);
  for (const webhook of oldestFirst) {
    const marked = readMarker(webhook.name);
    if (marked === null || marked.marker.namespace !== namespace) continue;
    const list = byIdentifier.get(marked.marker.identifier) ?? [];
    list.push(webhook);
    byIdentifier.set(marked.marker.identifier, list);
  }
  return byIdentifier;
}

function deletion(key: string, item: Managed, reason: 'removed' | 'duplicate') {
  return { action: 'delete' as const, key, webhookId: item.id, name: item.name, reason };
}

/** Each field whose server value differs from the declared one; lists compare as sets (order means nothing). */
function changedFields(declared: DeclaredValues, current: WebhookDetail, currentName: string): FieldChange[] {
  const candidates: FieldChange[] = [
    ...describingFields(declared, current, currentName),
    { field: 'job_ids', old: current.job_ids.map(Number), new: declared.job_ids },
    { field: 'active', old: current.active, new: declared.active },
    // jobhooks' own: a server that never sends it has no rate.
    {
      field: 'max_requests_per_second',
      old: current.max_requests_per_second ?? null,
      new: declared.max_requests_per_second,
    },
  ];
  return candidates.filter((change) => !sameValue(change.old, change.new));
}

/** An operational endpoint's fields: a webhook's, less its job ids and its rate. */
function changedEndpointFields(
  declared: DeclaredEndpointValues,
  current: OperationalEndpoint,
  currentName: string,
): FieldChange[] {
  const candidates: FieldChange[] = [
    ...describingFields(declared, current, currentName),
    { field: 'active', old: current.active, new: declared.active },
  ];
  return candidates.filter((change) => !sameValue(change.old, change.new));
}

/** The fields both kinds have, in the order plans show them. */
interface Described {
  description: string;
  client_url: string;
  event_types: readonly string[];
  name?: string;
}

function describingFields(
  declared: Described & { name: string },
  current: Described,
  currentName: string,
): FieldChange[] {
  return [
    { field: 'name', old: currentName, new: declared.name },
    { field: 'description', old: current.description, new: declared.description },
    { field: 'client_url', old: current.client_url, new: declared.client_url },
    { field: 'event_types', old: current.event_types, new: declared.event_types },
  ];
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    const left = new Set(a.map(String));
    return left.size === new Set(b.map(String)).size && b.every((item) => left.has(String(item)));
  }
  return a === b;
}

function warningsOf(key: string, webhook: Managed, reactivating: boolean): PlanWarning[] {
  const warnings: PlanWarning[] = [];
  if (webhook.archived) {
    // jobhooks' own time, in RFC 3339 like every time the IaC tools show.
    const since = webhook.archived_at ? ` since ${outputTime(webhook.archived_at)}` : '';
    const reason = webhook.archived_reason ? ` (${webhook.archived_reason})` : '';
    const next = reactivating
      ? 'apply reactivates it'
      : 'it sends nothing until an entry with active: true reactivates it';
    warnings.push({ key, webhookId: webhook.id, message: `archived${since}${reason}: ${next}` });
  }
  const status = webhook.http_status_code;
  if (status !== '0' && status !== '' && !/^2\d\d$/.test(status)) {
    const answer =
      status === '599'
        ? 'got no response (599: timeout, refused connection, DNS or TLS failure)'
        : `got HTTP ${status}`;
    warnings.push({ key, webhookId: webhook.id, message: `its last delivery ${answer}` });
  }
  return warnings;
}

export function countByAction(plan: Plan): Record<Action, number> {
  const counts = { create: 0, update: 0, reactivate: 0, delete: 0 };
  for (const change of plan.changes) counts[change.action] += 1;
  return counts;
}
