// The closed lists of the domain (event types, plans, permission sets), written once; every union type derives from them.
import { z } from 'zod';

export const EVENT_TYPES = ['job.run.started', 'job.run.completed', 'job.run.errored'] as const;
export const EventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventType>;

export const PLANS = ['developer', 'starter', 'enterprise'] as const;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;
/** Spec section 1: webhooks are available on the Starter and Enterprise-tier plans only. */
export const WEBHOOK_PLANS: readonly Plan[] = ['starter', 'enterprise'];

export const PERMISSION_SETS = [
  'Account Admin',
  'Admin',
  'Developer',
  'Job Runner',
  'Analyst',
  'Stakeholder',
  'Read-Only',
] as const;
export const PermissionSet = z.enum(PERMISSION_SETS);
export type PermissionSet = z.infer<typeof PermissionSet>;

/** Spec section 5.1: write access to webhooks needs one of these permission sets. */
export const WRITE_PERMISSION_SETS: readonly PermissionSet[] = ['Account Admin', 'Admin', 'Developer'];
/** Design section 2: job-run events are posted by the scheduler's token or an account admin. */
export const INGEST_PERMISSION_SETS: readonly PermissionSet[] = ['Account Admin', 'Job Runner'];
