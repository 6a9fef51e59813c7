// The closed lists of the domain as zod enums; the lists themselves are plain data in closed-lists.ts.
import { z } from 'zod';
import { EVENT_TYPES, OPERATIONAL_EVENT_TYPES, PERMISSION_SETS, PLANS } from './closed-lists';

export * from './closed-lists';

export const EventType = z.enum(EVENT_TYPES).meta({ id: 'EventType', description: 'The kind of job-run event.' });
export type EventType = z.infer<typeof EventType>;

export const OperationalEventType = z
  .enum(OPERATIONAL_EVENT_TYPES)
  .meta({ id: 'OperationalEventType', description: "The kind of operational event (jobhooks' own)." });
export type OperationalEventType = z.infer<typeof OperationalEventType>;

/** The event type of a delivery and its log: a job run's, or an operational one. */
export const DeliveredEventType = z
  .enum([...EVENT_TYPES, ...OPERATIONAL_EVENT_TYPES])
  .meta({ id: 'DeliveredEventType', description: 'The kind of event a delivery carries: job-run or operational.' });
export type DeliveredEventType = z.infer<typeof DeliveredEventType>;

export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

export const PermissionSet = z.enum(PERMISSION_SETS);
export type PermissionSet = z.infer<typeof PermissionSet>;
