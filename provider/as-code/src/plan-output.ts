// A plan as people read it, and as one JSON document for automation. Neither ever holds a secret: a plan has
// none (secrets exist only in create responses, during apply).
import { counted } from './words';
import { ACTIONS, type Action, countByAction, type Plan, type PlannedChange } from './plan';

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
        : `  No changes: ${counted(plan.unchanged, 'webhook')} already ${plan.unchanged === 1 ? 'matches' : 'match'} the files.`,
    );
  if (plan.warnings.length > 0) {
    lines.push('Warnings:');
    for (const warning of plan.warnings) lines.push(`  ! ${warning.key} (${warning.webhookId}): ${warning.message}`);
  }
  if (plan.changes.length > 0) {
    const counts = countByAction(plan);
    lines.push(
      `Plan: ${ACTIONS.map((action) => `${counts[action]} to ${action}`).join(', ')}; ${plan.unchanged} unchanged.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function changeLines(change: PlannedChange): string[] {
  const head = `  ${SIGN[change.action]} ${change.action} ${change.key}`;
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
    changes: plan.changes.map((change) =>
      change.action === 'create'
        ? { action: change.action, key: change.key, values: change.values }
        : change.action === 'delete'
          ? {
              action: change.action,
              key: change.key,
              webhook_id: change.webhookId,
              name: change.name,
              reason: change.reason,
            }
          : { action: change.action, key: change.key, webhook_id: change.webhookId, fields: change.fields },
    ),
    warnings: plan.warnings.map((warning) => ({
      key: warning.key,
      webhook_id: warning.webhookId,
      message: warning.message,
    })),
    summary: { ...countByAction(plan), unchanged: plan.unchanged },
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

const show = (value: unknown) => JSON.stringify(value);
