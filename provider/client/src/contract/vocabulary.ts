// The closed lists of the domain as zod enums; the lists themselves are plain data in closed-lists.ts.
import { z } from 'zod';
import { EVENT_TYPES, PERMISSION_SETS, PLANS } from './closed-lists';

export * from './closed-lists';

export const EventType = z.enum(EVENT_TYPES).meta({ id: 'EventType', description: 'The kind of job-run event.' });
export type EventType = z.infer<typeof EventType>;

export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

export const PermissionSet = z.enum(PERMISSION_SETS);
export type PermissionSet = z.infer<typeof PermissionSet>;
