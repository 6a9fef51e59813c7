// The storage interface the rest of the service programs against, with two implementations: the embedded
// SQLite file (sqlite-store.ts, one process) and PostgreSQL (postgres/postgres-store.ts, several instances on
// one database). SQL stays behind it, in this folder.
import type { Micros, Millis } from '../core/time';
import type { AccountRecord, ApiTokenRecord } from '../domain/account';
import type { AttemptFacts, AttemptLogEntry, AttemptResult, LoggedAttempt } from '../domain/attempt';
import type { ClaimedDelivery, DeliveryKey, DeliveryRecord, DueCandidate, PlannedDeliveries } from '../domain/delivery';
import type { StatsHour } from '../domain/delivery-stats';
import type { EndpointHealthChange, KeptHealth } from '../domain/endpoint-health';
import type { EventRecord } from '../domain/event';
import type { OperationalEventMaker } from './operational-plan';
import type { StartDecision } from '../domain/send-rate';
import type {
  DispatchState,
  FanOutWebhook,
  SecretChange,
  WebhookChange,
  WebhookKind,
  WebhookRecord,
} from '../domain/webhook';

export interface IdempotencyClaim {
  /** The SHA-256 (hex) of the Idempotency-Key header: the key itself is never stored. */
  key: string;
  requestHash: string;
  /** Keys older than this (microseconds) are expired and may be reused. */
  notBefore: Micros;
}

/** A secret change under an Idempotency-Key: made now, or made before under the same key (`replayed`). */
export interface SecretChangeOutcome {
  record: WebhookRecord;
  replayed: { requestHash: string; webhookId: string } | null;
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
  revoke(id: string, revokedAt: Micros): Promise<boolean>;
}

export interface WebhooksStore {
  /**
   * Inserts the webhook unless the account is at its limit (of webhooks of the record's kind) or the idempotency key was already
   * used; all in one transaction, so concurrent creates cannot exceed the limit or duplicate.
   */
  create(
    record: WebhookRecord,
    options: { maxPerAccount: number; idempotency: IdempotencyClaim | null },
  ): Promise<CreateWebhookOutcome>;
  /** Either kind: the caller checks the kind it serves (store/find-webhook.ts). */
  get(accountId: number, id: string): Promise<WebhookRecord | null>;
  /** The account's webhooks of one kind: the dbt-compatible API lists only 'job' ones. */
  list(
    accountId: number,
    page: { offset: number; limit: number },
    kind: WebhookKind,
  ): Promise<{ items: WebhookRecord[]; total: number }>;
  /**
   * Reads the current row and writes what `change` computes from it, in one transaction, so a rule
   * that depends on the current state (reactivation) cannot race the dispatcher. Null when absent.
   */
  update(
    accountId: number,
    id: string,
    change: (current: WebhookRecord) => WebhookChange,
  ): Promise<WebhookRecord | null>;
  /** Like update, for the secret and its rotation overlap. Null when absent. */
  changeSecret(
    accountId: number,
    id: string,
    change: (current: WebhookRecord) => SecretChange,
  ): Promise<WebhookRecord | null>;
  /**
   * changeSecret under an Idempotency-Key, recorded at `at` in the same transaction: when the key was recorded
   * before (and has not expired), nothing changes and the answer is the webhook as it is with what the key recorded.
   * Null when the webhook is absent.
   */
  changeSecretOnce(
    accountId: number,
    id: string,
    change: (current: WebhookRecord) => SecretChange,
    idempotency: IdempotencyClaim & { at: Micros },
  ): Promise<SecretChangeOutcome | null>;
  /** Forgets the replaced secrets whose overlap ended by `now`; resolves with how many webhooks. */
  dropEndedSecrets(now: Micros): Promise<number>;
  delete(accountId: number, id: string): Promise<boolean>;
  countArchived(): Promise<number>;
  /**
   * Asks for the start slot of a request to a rate-limited webhook that starts at `at`, and takes it when granted
   * (domain/send-rate.ts, decideStartOf: the webhook's next start then moves to `at + spacing`). One decision on the
   * webhook's row, made atomically for every instance: two requests are never both granted within one spacing.
   * A webhook deactivated, archived or deleted meanwhile is refused for good (`stopped`): it takes no deliveries.
   */
  takeStartSlot(webhookId: string, at: Micros, spacing: Micros): Promise<StartDecision>;
}

export type IngestOutcome =
  { kind: 'recorded'; queued: number; skipped: number } | { kind: 'duplicate'; eventId: string };

export interface EventsStore {
  /**
   * Records the event and the deliveries `fanOut` plans from the account's webhooks, in one
   * transaction, unless an event of the same run and type was recorded before. The first attempt of
   * each pending delivery is due at once.
   */
  record(event: EventRecord, fanOut: (webhooks: readonly FanOutWebhook[]) => PlannedDeliveries): Promise<IngestOutcome>;
}

export interface ClaimRequest {
  /** The dispatcher's name, unique per process; each claim's lease (ClaimedDelivery.lease) starts with it. */
  owner: string;
  now: Micros;
  /** The lease ends here: if no result is recorded by then, the delivery is due again. */
  leaseUntil: Micros;
  /** How many due deliveries to consider per webhook, oldest first. */
  perWebhook: number;
  /** Webhooks that have no room for another attempt now. */
  excludeWebhookIds: readonly string[];
}

/** What a claim looked at, besides the candidates it offers. */
export interface ClaimWindow {
  /**
   * The claim looked at as many webhooks as one claim may (256 on PostgreSQL, those whose due deliveries are
   * oldest), so other webhooks may have deliveries due too. Always false on SQLite, whose claims look at all.
   */
  full: boolean;
}

export interface DeliveriesStore {
  /** Leases due deliveries chosen by `choose` among each webhook's oldest due ones, in one transaction. */
  claimDue(
    request: ClaimRequest,
    choose: (candidates: DueCandidate[], window: ClaimWindow) => DueCandidate[],
  ): Promise<ClaimedDelivery[]>;
  /**
   * For each result, in one transaction: appends the log row, moves the delivery on (only if the lease
   * still holds), and sets the webhook's dispatch state to what `next` computes from its current
   * state; a webhook that becomes archived has its other pending deliveries skipped. Returns each
   * result's log row, or null when its webhook was deleted meanwhile. A result the database refuses is written
   * apart from the others, then without the receiver's answer (domain/attempt.ts, withoutAnswer); rejects with
   * the first error when a result could still not be written (the others are).
   */
  recordAttempts(
    results: readonly AttemptResult[],
    next: (current: DispatchState, facts: AttemptFacts) => DispatchState,
    /**
     * Writes the operational events the results made true (results-plan.ts), in the same transaction; null or
     * omitted: none (tests of the store alone).
     */
    maker?: OperationalEventMaker | null,
  ): Promise<Array<LoggedAttempt | null>>;
  /**
   * Marks deliveries of one claim skipped (their webhook is archived or inactive): no request is made. Only rows
   * that still hold `lease` (ClaimedDelivery.lease) move.
   */
  skip(deliveries: readonly DeliveryKey[], lease: string, now: Micros): Promise<void>;
  get(webhookId: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /** Pending deliveries whose attempt is due and not leased. */
  countDue(now: Micros): Promise<number>;
  /** Each of the account's webhooks that has pending deliveries: how many, and how many of them are due at `now`. */
  backlogOf(accountId: number, now: Micros): Promise<WebhookBacklog[]>;
  /**
   * Makes the webhook's failed deliveries created in [since, until) due again at `now`, in their order, each
   * for one attempt more; resolves with how many.
   */
  recoverFailed(webhookId: string, window: { since: Micros; until: Micros }, now: Micros): Promise<number>;
}

export interface WebhookBacklog {
  webhookId: string;
  pending: number;
  due: number;
}

/** One webhook's attempts in one hour of the rollup. */
export interface HourTrend {
  webhookId: string;
  hour: Micros;
  succeeded: number;
  failed: number;
}

/** Hours of the rollup whose start is in [since, until), microseconds. */
export interface StatsWindow {
  since: Micros;
  until: Micros;
}

/** Which attempts a log page shows; each field left out matches every attempt. Times are microseconds. */
export interface DeliveryLogFilter {
  /** true for the attempts that succeeded, false for the others. */
  succeeded?: boolean | undefined;
  eventType?: string | undefined;
  /** requested_at >= since */
  since?: Micros | undefined;
  /** requested_at < until */
  until?: Micros | undefined;
}

export interface DeliveryLogStore {
  /**
   * Appends a log row that belongs to no delivery (the test endpoint's sends); one the database refuses is
   * written without the receiver's answer (withoutAnswer).
   */
  append(entry: AttemptLogEntry): Promise<void>;
  /** The log rows of one delivery of the webhook, oldest first. */
  attemptsOf(webhookId: string, deliveryId: string): Promise<LoggedAttempt[]>;
  /** Newest first. */
  list(
    webhookId: string,
    page: { offset: number; limit: number },
    filter?: DeliveryLogFilter,
  ): Promise<{ items: LoggedAttempt[]; total: number }>;
  /**
   * Deletes log rows older than `cutoff`, finished deliveries last touched before it, events with
   * no delivery left that were taken in before it, and the rollup's hours that ended by then.
   */
  purgeOlderThan(cutoff: Micros): Promise<{ attempts: number; deliveries: number; events: number; hours: number }>;
  /** The hourly rollup of one webhook's attempts (test sends left out), oldest first; hours with none are absent. */
  hoursOfWebhook(webhookId: string, window: StatsWindow): Promise<StatsHour[]>;
  /** The account's hours (null: every account's), each added up over its webhooks (webhookId ''), oldest first. */
  hoursOfAccount(accountId: number | null, window: StatsWindow): Promise<StatsHour[]>;
  /** Each of the account's webhooks' hours in the window added up, one row per webhook that has any (hour: since). */
  totalsByWebhook(accountId: number, window: StatsWindow): Promise<StatsHour[]>;
  /** Each of the account's webhooks' attempts per hour in the window, succeeded and failed: the list's sparklines. */
  trendsByWebhook(accountId: number, window: StatsWindow): Promise<HourTrend[]>;
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

/** One account's rate window for one budget, as every instance sees it. */
export interface SharedRateWindow {
  windowStartMs: Millis;
  /** Requests admitted in the window, over all instances. */
  count: number;
  blockedUntilMs: Millis | null;
}

export interface RateWindowsStore {
  /**
   * Reads the account's window of `budget` (undefined when it has none), and writes the one `decide` returns,
   * in one transaction that holds the row, so instances never lose each other's counts. Resolves with what
   * `decide` answered besides. Updates of one window asked for at the same moment are applied one after the
   * other, each `decide` seeing the window the one before wrote (PostgreSQL shares one transaction among them).
   */
  update<T>(
    accountId: number,
    budget: string,
    decide: (current: SharedRateWindow | undefined) => { window: SharedRateWindow; answer: T },
  ): Promise<T>;
}

/** Each client address's window of failed sign-ins, shared by every instance. */
export interface SignInWindowsStore {
  /**
   * As RateWindowsStore.update, for the window of one client key; when the window written begins a block, every
   * instance's onBlocked listener hears of it once the transaction commits.
   */
  update<T>(
    clientKey: string,
    decide: (current: SharedRateWindow | undefined) => { window: SharedRateWindow; answer: T },
  ): Promise<T>;
  /**
   * Calls `listener` with each block on record now, then with each block that begins on any instance, and again
   * with every block on record when a lost connection is back (what was announced meanwhile was missed).
   * A block may be told more than once, and ended ones may be among them: the listener compares with its clock.
   */
  onBlocked(listener: (clientKey: string, blockedUntilMs: Millis) => void): void;
  /** Deletes the windows that started `windowMs` or more before `nowMs` and hold no block still in force. */
  forgetEnded(nowMs: Millis, windowMs: Millis): Promise<void>;
}

/**
 * Each webhook's endpoint health: on its row for every instance (PostgreSQL), in the memory of the one process on
 * a SQLite file. A change of the webhook's URL, and its reactivation, reset it with the change.
 */
export interface EndpointHealthStore {
  /**
   * Applies `change` to the webhook's health, holding its row; resolves with the result and its new revision, null
   * when it is gone. With `maker`, writes the operational events of the circuit's change
   * (domain/endpoint-health.ts, circuitFacts).
   */
  change(
    webhookId: string,
    change: EndpointHealthChange,
    maker?: OperationalEventMaker | null,
  ): Promise<KeptHealth | null>;
  /** Webhooks whose endpoint's circuit is not closed. */
  countNotClosed(): Promise<number>;
}

/** What a cluster-wide job leaves for the other instances to read: named counts. */
export type ClusterResult = Record<string, number>;

/** Work that several instances on one database must do once, or must hear of from each other. */
export interface ClusterStore {
  /** Runs `task` holding the cluster-wide lock `name`, waiting for an instance that holds it (one process: at once). */
  whileLocked<T>(name: string, task: () => Promise<T>): Promise<T>;
  /**
   * The result of `task` as some instance computed it less than `maxAgeMs` before `nowMs` (instance clocks);
   * when there is none that fresh, one instance computes it while the others wait for it, so a periodic job or a
   * cluster-wide gauge costs the database once per period, not once per instance. One process: runs `task`.
   */
  latest<T extends ClusterResult>(name: string, nowMs: Millis, maxAgeMs: Millis, task: () => Promise<T>): Promise<T>;
  /**
   * Calls `listener` when another instance queued deliveries or made some due, and when that news may have been
   * missed (a lost connection came back). One process: never, since its own ingestion wakes it directly.
   */
  onDeliveriesQueued(listener: () => void): void;
}

export interface Store {
  /** Which database: 'sqlite' is one process on a file, 'postgres' may be several instances on one database. */
  backend: 'sqlite' | 'postgres';
  accounts: AccountsStore;
  apiTokens: ApiTokensStore;
  webhooks: WebhooksStore;
  events: EventsStore;
  deliveries: DeliveriesStore;
  deliveryLog: DeliveryLogStore;
  secretKeys: SecretKeysStore;
  cluster: ClusterStore;
  /** Windows of the per-account rate limits, shared by every instance (one SQLite process keeps them in memory). */
  rateWindows: RateWindowsStore;
  /** Windows of failed sign-ins, shared by every instance (one SQLite process keeps them in memory). */
  signInWindows: SignInWindowsStore;
  /** Each webhook's endpoint health, shared by every instance (one SQLite process keeps it in memory). */
  endpointHealth: EndpointHealthStore;
  /** Resolves when the database can be read and written; rejects with the database's own error otherwise. */
  checkReadiness(): Promise<void>;
  close(): Promise<void>;
}
