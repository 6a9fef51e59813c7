// The storage interface the rest of the service programs against. Methods return promises so a
// PostgreSQL store can implement it later; SQL stays behind it, in this folder.
import type { EventType, PermissionSet, Plan } from '../contract';

export interface AccountRecord {
  id: number;
  identifier: string;
  name: string;
  plan: Plan;
  createdAt: number;
}

export interface ApiTokenRecord {
  id: string;
  accountId: number;
  name: string;
  permissionSet: PermissionSet;
  createdAt: number;
  revokedAt: number | null;
}

export interface SubscriptionRecord {
  id: string;
  accountId: number;
  accountIdentifier: string;
  name: string;
  description: string;
  clientUrl: string;
  eventTypes: EventType[];
  /** Job ids as decimal strings, in the order they were written. */
  jobIds: string[];
  active: boolean;
  sealedSecret: string;
  createdAt: number;
  updatedAt: number;
  dispatchedAt: number | null;
  httpStatusCode: string;
  consecutiveFailures: number;
  failingSince: number | null;
  lastFailureAt: number | null;
  archivedAt: number | null;
  archivedReason: string | null;
}

/** The fields a user writes through create and update. */
export type SubscriptionWritable = Pick<
  SubscriptionRecord,
  'name' | 'description' | 'clientUrl' | 'eventTypes' | 'jobIds' | 'active'
>;

/** What an update may change: the written fields, plus the archive state and failure counters it may reset. */
export type SubscriptionChange = SubscriptionWritable &
  Pick<SubscriptionRecord, 'updatedAt' | 'consecutiveFailures' | 'failingSince' | 'lastFailureAt' | 'archivedAt' | 'archivedReason'>;

export interface IdempotencyClaim {
  key: string;
  requestHash: string;
  /** Keys older than this (microseconds) are expired and may be reused. */
  notBefore: number;
}

export type CreateSubscriptionOutcome =
  | { kind: 'created' }
  | { kind: 'limit_reached'; limit: number }
  | { kind: 'replayed'; requestHash: string; subscriptionId: string };

export interface AccountsStore {
  insert(account: AccountRecord): Promise<void>;
  get(id: number): Promise<AccountRecord | null>;
  list(): Promise<AccountRecord[]>;
  count(): Promise<number>;
}

export interface ApiTokensStore {
  insert(token: ApiTokenRecord, tokenHash: string): Promise<void>;
  /** The unrevoked token with this hash and its account, or null. */
  findActiveByHash(tokenHash: string): Promise<{ token: ApiTokenRecord; account: AccountRecord } | null>;
  listForAccount(accountId: number): Promise<ApiTokenRecord[]>;
  /** False when no unrevoked token has that id. */
  revoke(id: string, revokedAt: number): Promise<boolean>;
}

export interface SubscriptionsStore {
  /**
   * Inserts the subscription unless the account is at its limit or the idempotency key was already
   * used; all in one transaction, so concurrent creates cannot exceed the limit or duplicate.
   */
  create(
    record: SubscriptionRecord,
    options: { maxPerAccount: number; idempotency: IdempotencyClaim | null },
  ): Promise<CreateSubscriptionOutcome>;
  get(accountId: number, id: string): Promise<SubscriptionRecord | null>;
  list(accountId: number, page: { offset: number; limit: number }): Promise<{ items: SubscriptionRecord[]; total: number }>;
  /**
   * Reads the current row and writes what `change` computes from it, in one transaction, so a rule
   * that depends on the current state (reactivation) cannot race the dispatcher. Null when absent.
   */
  update(accountId: number, id: string, change: (current: SubscriptionRecord) => SubscriptionChange): Promise<SubscriptionRecord | null>;
  delete(accountId: number, id: string): Promise<boolean>;
}

export interface Store {
  accounts: AccountsStore;
  apiTokens: ApiTokensStore;
  subscriptions: SubscriptionsStore;
  /** Resolves when the database answers a query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
