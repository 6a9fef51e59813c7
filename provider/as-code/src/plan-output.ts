// A plan as people read it, and as one JSON document for automation. Neither ever holds a secret: a plan has
// none (secrets exist only in create responses, during apply).
import { counted } from './words';
import { ACTIONS, type Action, countByAction, type Plan, type PlannedChange, subjectOf } from './plan';

export interface Target {
  hostUrl: string;
  accountId: number;
}

const SIGN: Record<Action, string> = { create: '+', update: '~', reactivate: '^', delete: '-' };

export function planText(plan: Plan, target: Target): string {
  const scope = plan.namespace === null ? 'no namespace' : `namespace ${plan.namespace}`;
  const lines = [`Account ${target.accountId} at ${target.hostUrl}, ${scope}:`];
  for (const change of plan.changes) lines.push(...changeLines(change));
  if (plan.changes.length === 0)
    lines.push(
      plan.unchanged === 0
        ? '  No changes: the files declare no webhook, and none is managed in this namespace.'
        : `  No changes: ${unchangedText(plan)} already ${plan.unchanged === 1 ? 'matches' : 'match'} the files.`,
    );
  if (plan.warnings.length > 0) {
    lines.push('Warnings:');
    for (const warning of plan.warnings)
      lines.push(`  ! ${subjectOf(warning)} (${warning.webhookId}): ${warning.message}`);
  }
  if (plan.changes.length > 0) {
    const counts = countByAction(plan);
    lines.push(
      `Plan: ${ACTIONS.map((action) => `${counts[action]} to ${action}`).join(', ')}; ${plan.unchanged} unchanged.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** "2 webhooks", or "1 webhook and 1 operational endpoint": each kind the files manage. */
function unchangedText(plan: Plan): string {
  const kinds = [
    plan.unchangedWebhooks === undefined ? null : counted(plan.unchangedWebhooks, 'webhook'),
    plan.unchangedOperationalEndpoints === undefined
      ? null
      : counted(plan.unchangedOperationalEndpoints, 'operational endpoint'),
  ];
  return kinds.filter((kind) => kind !== null).join(' and ');
}

function changeLines(change: PlannedChange): string[] {
  const head = `  ${SIGN[change.action]} ${change.action} ${subjectOf(change)}`;
  switch (change.action) {
    case 'create':
      return [head, ...Object.entries(change.values).map(([field, value]) => `      ${field}: ${show(value)}`)];
    case 'update':
    case 'reactivate':
      return [
        `${head} (${change.webhookId})`,
        ...change.fields.map((field) => `      ${field.field}: ${show(field.old)} -> ${show(field.new)}`),
      ];
    case 'delete':
      return [
        `${head} (${change.webhookId}) ${show(change.name)}${change.reason === 'duplicate' ? ': a second webhook with the same marker' : ': no longer in the files'}`,
      ];
  }
}

export function planJson(plan: Plan, target: Target): string {
  const document = {
    host_url: target.hostUrl,
    account_id: target.accountId,
    namespace: plan.namespace,
    changes: plan.changes.map((change) => ({ ...kindOf(change), ...changeJson(change) })),
    warnings: plan.warnings.map((warning) => ({
      ...kindOf(warning),
      key: warning.key,
      [idField(warning)]: warning.webhookId,
      message: warning.message,
    })),
    summary: { ...countByAction(plan), unchanged: plan.unchanged },
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function changeJson(change: PlannedChange) {
  if (change.action === 'create') return { action: change.action, key: change.key, values: change.values };
  const id = { [idField(change)]: change.webhookId };
  if (change.action === 'delete')
    return { action: change.action, key: change.key, ...id, name: change.name, reason: change.reason };
  return { action: change.action, key: change.key, ...id, fields: change.fields };
}

/** An operational endpoint's change or warning says so, with `endpoint_id`; a webhook's reads as it always has. */
const kindOf = (item: { kind?: 'operational_endpoint' | undefined }) =>
  item.kind === undefined ? {} : { kind: item.kind };
const idField = (item: { kind?: 'operational_endpoint' | undefined }) =>
  item.kind === 'operational_endpoint' ? 'endpoint_id' : 'webhook_id';

const show = (value: unknown) => JSON.stringify(value);
