// The closed lists of the domain (event types, plans, permission sets), written once as plain data.
// No zod here: the web UI imports these, and its bundle stays free of the schema library.

export const EVENT_TYPES = ['job.run.started', 'job.run.completed', 'job.run.errored'] as const;
export type EventTypeName = (typeof EVENT_TYPES)[number];

export const PLANS = ['developer', 'starter', 'enterprise'] as const;
export type PlanName = (typeof PLANS)[number];
/** Webhooks are available on the Starter and Enterprise-tier plans only. */
export const WEBHOOK_PLANS: readonly PlanName[] = ['starter', 'enterprise'];

export const PERMISSION_SETS = [
  'Account Admin',
  'Admin',
  'Developer',
  'Job Runner',
  'Analyst',
  'Stakeholder',
  'Read-Only',
] as const;
export type PermissionSetName = (typeof PERMISSION_SETS)[number];

/** Write access to webhooks needs one of these permission sets. */
export const WRITE_PERMISSION_SETS: readonly PermissionSetName[] = ['Account Admin', 'Admin', 'Developer'];
/** Job-run events are posted by the scheduler's token or an account admin (docs/decisions.md#15-who-may-do-what). */
export const INGEST_PERMISSION_SETS: readonly PermissionSetName[] = ['Account Admin', 'Job Runner'];
