// The closed lists of the domain (event types, plans, permission sets), written once as plain data.
// No zod here: the web UI imports these, and its bundle stays free of the schema library.

export const EVENT_TYPES = ['job.run.started', 'job.run.completed', 'job.run.errored'] as const;
export type EventTypeName = (typeof EVENT_TYPES)[number];

/**
 * What jobhooks tells an account's operational endpoints about its webhooks and their deliveries
 * (docs/operational-webhooks.md); jobhooks' own, beside the job-run events of the dbt-compatible API.
 */
export const OPERATIONAL_EVENT_TYPES = [
  'webhook.archived',
  'webhook.failing',
  'webhook.circuit_opened',
  'webhook.recovered',
  'delivery.exhausted',
] as const;
export type OperationalEventTypeName = (typeof OPERATIONAL_EVENT_TYPES)[number];

/** Every event type a delivery may carry: a job run's, or an operational one. */
export type DeliveredEventTypeName = EventTypeName | OperationalEventTypeName;

export const isJobEventType = (type: DeliveredEventTypeName): type is EventTypeName =>
  (EVENT_TYPES as readonly string[]).includes(type);
export const isOperationalEventType = (type: DeliveredEventTypeName): type is OperationalEventTypeName =>
  (OPERATIONAL_EVENT_TYPES as readonly string[]).includes(type);

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
