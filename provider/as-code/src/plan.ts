// What apply would do: the declared webhooks against the account's webhooks, as create / update / reactivate /
// delete. Pure: it sees only the declaration and the list, and touches only webhooks marked with the files'
// namespace.
import { outputTime } from '@jobhooks/client';
import { markedName, type Marker, markerKey, readMarker, type WebhookDetail } from '@jobhooks/client/contract';
import type { DeclaredValues } from './declaration';
import type { Declaration } from './load-declarations';
import { byAge } from './remote';

export type FieldName = keyof DeclaredValues;

export interface FieldChange {
  field: FieldName;
  old: unknown;
  new: unknown;
}

export type PlannedChange =
  | { action: 'create'; key: string; values: DeclaredValues }
  | {
      action: 'update' | 'reactivate';
      key: string;
      webhookId: string;
      fields: FieldChange[];
      values: DeclaredValues;
      currentUrl: string;
    }
  | { action: 'delete'; key: string; webhookId: string; name: string; reason: 'removed' | 'duplicate' };

export type Action = PlannedChange['action'];
export const ACTIONS: readonly Action[] = ['create', 'update', 'reactivate', 'delete'];

export interface PlanWarning {
  key: string;
  webhookId: string;
  message: string;
}

export interface Plan {
  namespace: string | null;
  /** In the order apply makes them: creates, updates, reactivations, deletes. */
  changes: PlannedChange[];
  warnings: PlanWarning[];
  /** Declared webhooks that already match. */
  unchanged: number;
}

/**
 * `values` in a planned change carry the name the server will hold, marker included; `fields` show the names as
 * the files write them.
 */
export function planChanges(declaration: Declaration, remote: readonly WebhookDetail[]): Plan {
  const managed = managedWebhooks(remote, declaration.namespace);
  const changes: PlannedChange[] = [];
  const warnings: PlanWarning[] = [];
  let unchanged = 0;
  for (const entry of declaration.webhooks) {
    const marker: Marker = { namespace: declaration.namespace, identifier: entry.identifier };
    const key = markerKey(marker);
    const values = { ...entry.values, name: markedName(entry.values.name, marker) };
    const [current, ...duplicates] = managed.get(entry.identifier) ?? [];
    managed.delete(entry.identifier);
    for (const duplicate of duplicates) changes.push(deletion(key, duplicate, 'duplicate'));
    if (current === undefined) {
      changes.push({ action: 'create', key, values });
      continue;
    }
    const fields = changedFields(entry.values, current);
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
  for (const [identifier, webhooks] of managed)
    for (const webhook of webhooks)
      changes.push(deletion(markerKey({ namespace: declaration.namespace, identifier }), webhook, 'removed'));
  changes.sort((a, b) => ACTIONS.indexOf(a.action) - ACTIONS.indexOf(b.action));
  return { namespace: declaration.namespace, changes, warnings, unchanged };
}

/** The webhooks marked with this namespace, by identifier, oldest first (the oldest is the one kept). */
function managedWebhooks(remote: readonly WebhookDetail[], namespace: string | null): Map<string, WebhookDetail[]> {
  const byIdentifier = new Map<string, WebhookDetail[]>();
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

function deletion(key: string, webhook: WebhookDetail, reason: 'removed' | 'duplicate'): PlannedChange {
  return { action: 'delete', key, webhookId: webhook.id, name: webhook.name, reason };
}

/** Each field whose server value differs from the declared one; lists compare as sets (order means nothing). */
function changedFields(declared: DeclaredValues, current: WebhookDetail): FieldChange[] {
  const currentName = readMarker(current.name)?.name ?? current.name;
  const currentJobIds = current.job_ids.map(Number);
  const candidates: FieldChange[] = [
    { field: 'name', old: currentName, new: declared.name },
    { field: 'description', old: current.description, new: declared.description },
    { field: 'client_url', old: current.client_url, new: declared.client_url },
    { field: 'event_types', old: current.event_types, new: declared.event_types },
    { field: 'job_ids', old: currentJobIds, new: declared.job_ids },
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

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    const left = new Set(a.map(String));
    return left.size === new Set(b.map(String)).size && b.every((item) => left.has(String(item)));
  }
  return a === b;
}

function warningsOf(key: string, webhook: WebhookDetail, reactivating: boolean): PlanWarning[] {
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
