// An account and its API tokens, as the store keeps them. Times are microseconds since the epoch.
import type { Micros } from '../core/time';
import type { PermissionSet, Plan } from '@jobhooks/client/contract';

export interface AccountRecord {
  id: number;
  identifier: string;
  name: string;
  plan: Plan;
  createdAt: Micros;
}

export interface ApiTokenRecord {
  id: string;
  accountId: number;
  name: string;
  permissionSet: PermissionSet;
  createdAt: Micros;
  revokedAt: Micros | null;
}
