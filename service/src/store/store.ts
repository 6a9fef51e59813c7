// The storage interface the rest of the service programs against. Methods return promises so a
// PostgreSQL store can implement it later; SQL stays behind it, in this folder.
import type { EventType, PermissionSet, Plan } from '@jobhooks/client/contract';
import type { AttemptFacts, DispatchState } from '../delivery/archive-policy';

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

export interface WebhookRecord {
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
export type WebhookWritable = Pick<
  WebhookRecord,
  'name' | 'description' | 'clientUrl' | 'eventTypes' | 'jobIds' | 'active'
>;

/** What an update may change: the written fields, plus the archive state and failure counters it may reset. */
export type WebhookChange = WebhookWritable &
  Pick<WebhookRecord, 'updatedAt' | 'consecutiveFailures' | 'failingSince' | 'lastFailureAt' | 'archivedAt' | 'archivedReason'>;

export interface IdempotencyClaim {
  /** The SHA-256 (hex) of the Idempotency-Key header: the key itself is never stored. */
  key: string;
  requestHash: string;
  /** Keys older than this (microseconds) are expired and may be reused. */
  notBefore: number;
}

export type CreateWebhookOutcome =
  | { kind: 'created' }
  | { kind: 'limit_reached'; limit: number }
  | { kind: 'replayed'; requestHash: string; webhookId: string };

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

export interface WebhooksStore {
  /**
   * Inserts the webhook unless the account is at its limit or the idempotency key was already
   * used; all in one transaction, so concurrent creates cannot exceed the limit or duplicate.
   */
  create(
    record: WebhookRecord,
    options: { maxPerAccount: number; idempotency: IdempotencyClaim | null },
  ): Promise<CreateWebhookOutcome>;
  get(accountId: number, id: string): Promise<WebhookRecord | null>;
  list(accountId: number, page: { offset: number; limit: number }): Promise<{ items: WebhookRecord[]; total: number }>;
  /**
   * Reads the current row and writes what `change` computes from it, in one transaction, so a rule
   * that depends on the current state (reactivation) cannot race the dispatcher. Null when absent.
   */
  update(accountId: number, id: string, change: (current: WebhookRecord) => WebhookChange): Promise<WebhookRecord | null>;
  delete(accountId: number, id: string): Promise<boolean>;
  countArchived(): Promise<number>;
}

/** A job-run event taken in. Times are microseconds since the epoch. */
export interface EventRecord {
  id: string;
  accountId: number;
  eventType: EventType;
  runId: string;
  jobId: string;
  createdAt: number;
}

export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'skipped';

/**
 * One event x webhook. The exact bytes every attempt will send are its `payloadHead` followed by the
 * event's `payloadTail` (events/payload.ts), so the run data all webhooks share is stored once per event.
 */
export interface NewDelivery {
  id: string;
  webhookId: string;
  state: 'pending' | 'skipped';
  payloadHead: Buffer;
}

export interface PlannedDeliveries {
  payloadTail: Buffer;
  deliveries: NewDelivery[];
}

export type IngestOutcome =
  | { kind: 'recorded'; queued: number; skipped: number }
  | { kind: 'duplicate'; eventId: string };

export interface EventsStore {
  /**
   * Records the event and the deliveries `fanOut` plans from the account's webhooks, in one
   * transaction, unless an event of the same run and type was recorded before. The first attempt of
   * each pending delivery is due at once.
   */
  record(event: EventRecord, fanOut: (webhooks: WebhookRecord[]) => PlannedDeliveries): Promise<IngestOutcome>;
}

export interface DueCandidate {
  id: string;
  webhookId: string;
}

/** A delivery leased to one dispatcher, with what its attempt needs. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  eventType: EventType;
  webhookId: string;
  payload: Buffer;
  /** Attempts made so far. */
  attempts: number;
  clientUrl: string;
  sealedSecret: string;
  /** The signature an earlier attempt computed; null until an attempt has failed and left it to retry. */
  signature: string | null;
  active: boolean;
  archived: boolean;
}

export interface ClaimRequest {
  owner: string;
  now: number;
  /** The lease ends here: if no result is recorded by then, the delivery is due again. */
  leaseUntil: number;
  /** How many due deliveries to consider per webhook, oldest first. */
  perWebhook: number;
  /** Webhooks that have no room for another attempt now. */
  excludeWebhookIds: readonly string[];
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  eventType: EventType;
  webhookId: string;
  state: DeliveryState;
  payload: Buffer;
  attempts: number;
  signature: string | null;
}

/** One row of the delivery log. */
export interface AttemptLogEntry {
  deliveryId: string | null;
  webhookId: string;
  eventId: string;
  eventType: EventType;
  attempt: number;
  requestedAt: number;
  durationMs: number;
  statusCode: string;
  error: string | null;
  success: boolean;
  responseExcerpt: string;
  isTest: boolean;
}

export interface LoggedAttempt extends AttemptLogEntry {
  id: number;
}

/** What an attempt does to its delivery row. */
export type DeliveryChange =
  /** `signature` is the one this attempt sent; the retry sends it again instead of signing anew. */
  | { state: 'pending'; nextAttemptAt: number; signature: string | null }
  | { state: 'succeeded' | 'failed' }
  /** A manual redelivery that failed leaves the delivery as it was. */
  | { state: 'unchanged' };

export interface AttemptResult {
  log: AttemptLogEntry & { deliveryId: string };
  facts: AttemptFacts;
  delivery: DeliveryChange;
  /** The lease the result was produced under; null for a manual redelivery of a finished delivery. */
  leaseOwner: string | null;
}

export interface DeliveriesStore {
  /** Leases due deliveries chosen by `choose` among each webhook's oldest due ones, in one transaction. */
  claimDue(request: ClaimRequest, choose: (candidates: DueCandidate[]) => DueCandidate[]): Promise<ClaimedDelivery[]>;
  /**
   * For each result, in one transaction: appends the log row, moves the delivery on (only if the lease
   * still holds), and sets the webhook's dispatch state to what `next` computes from its current
   * state; a webhook that becomes archived has its other pending deliveries skipped. Returns each
   * result's log row, or null when its webhook was deleted meanwhile.
   */
  recordAttempts(
    results: readonly AttemptResult[],
    next: (current: DispatchState, facts: AttemptFacts) => DispatchState,
  ): Promise<Array<LoggedAttempt | null>>;
  /** Marks leased deliveries skipped (their webhook is archived or inactive): no request is made. */
  skip(deliveryIds: readonly string[], owner: string, now: number): Promise<void>;
  get(webhookId: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /** Pending deliveries whose attempt is due and not leased. */
  countDue(now: number): Promise<number>;
}

export interface DeliveryLogStore {
  /** Appends a log row that belongs to no delivery (the test endpoint's sends). */
  append(entry: AttemptLogEntry): Promise<void>;
  /** Newest first. */
  list(webhookId: string, page: { offset: number; limit: number }): Promise<{ items: LoggedAttempt[]; total: number }>;
  /**
   * Deletes log rows older than `cutoff`, finished deliveries last touched before it, and events with
   * no delivery left that were taken in before it.
   */
  purgeOlderThan(cutoff: number): Promise<{ attempts: number; deliveries: number; events: number }>;
}

/** What is sealed with the secret key, for the start-up key check and `jobhooks secret-key rotate`. */
export interface SecretKeysStore {
  /** The known text sealed with the key the database's secrets are under; null before the first check. */
  keyCheck(): Promise<string | null>;
  /** One webhook's sealed secret, or null when the database holds none. */
  anySealedSecret(): Promise<string | null>;
  setKeyCheck(sealed: string): Promise<void>;
  /** Re-seals every webhook secret and the key check in one transaction; resolves with how many webhooks. */
  resealAll(resealOne: (sealed: string) => string, keyCheck: string): Promise<number>;
}

export interface Store {
  accounts: AccountsStore;
  apiTokens: ApiTokensStore;
  webhooks: WebhooksStore;
  events: EventsStore;
  deliveries: DeliveriesStore;
  deliveryLog: DeliveryLogStore;
  secretKeys: SecretKeysStore;
  /** Resolves when the database can be read and written; rejects with the database's own error otherwise. */
  checkReadiness(): Promise<void>;
  close(): Promise<void>;
}
