// The webhook use cases behind the management API: create, read, list, update, delete, test; the record-level ones
// also serve jobhooks' own operational endpoints (operational-endpoint-service.ts), webhooks of another kind.
import { type Micros, microsFromSeconds, type Seconds } from '../core/time';
import { createHash } from 'node:crypto';
import {
  LIMITS,
  type CreatedWebhook,
  type WebhookDetail,
  type WebhookValues,
  type WebhookSummary,
  type TestResult,
  type RotatedSecret,
  type EndedSecretOverlap,
} from '@jobhooks/client/contract';
import { type Clock, nowMicros } from '../core/clock';
import { ConflictError, ValidationError } from '../core/errors';
import type { IdGenerator } from '../core/ids';
import type { RandomBytes } from '../core/random';
import type { Tracing } from '../core/tracing';
import { makeAttempt } from '../delivery/attempt';
import { circuitAt, type EndpointHealthRegistry, UNKNOWN_ENDPOINT } from '../delivery/endpoint-health';
import type { Send } from '../delivery/sender';
import { signingSecrets } from '../delivery/signing-secrets';
import { buildPayload, sampleCompletedRun } from '../events/payload';
import { refusalForHost } from '../security/address-policy';
import type { SecretBox } from '../security/secret-box';
import type { AccountRecord } from '../domain/account';
import {
  endpointRenewed,
  NEW_DISPATCH_STATE,
  ROTATED_KEY_PREFIX,
  type SecretChange,
  type WebhookKind,
  type WebhookRecord,
  type WebhookWritable,
} from '../domain/webhook';
import type { IdempotencyClaim, Store } from '../store/store';
import { findWebhook, webhookNotFound } from '../store/find-webhook';
import { secretOverlapUntil, toCreated, toDetail, toSummary } from './webhook-view';
import { planUpdate } from './update-rules';

const HMAC_SECRET_BYTES = 32;

export interface WebhookServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  random: RandomBytes;
  secretBox: SecretBox;
  send: Send;
  /** Endpoint health: shown with each webhook, and told what a test send got. */
  health: EndpointHealthRegistry;
  /** A test send's `traceparent` (a trace of its own), and its span when traces are exported. */
  tracing: Tracing;
  maxWebhooksPerAccount: number;
  allowPrivateUrls: boolean;
}

export type WebhookService = ReturnType<typeof createWebhookService>;

function toWritable(input: WebhookValues): WebhookWritable {
  return {
    name: input.name,
    description: input.description,
    clientUrl: input.client_url,
    eventTypes: input.event_types,
    jobIds: input.job_ids.map(String),
    active: input.active,
    maxRequestsPerSecond: input.max_requests_per_second,
  };
}

/**
 * Same request, same fingerprint: key order is fixed by toWritable. Without a rate the fingerprint is the one of the
 * fields before it existed, so keys recorded then still match their replays.
 */
function fingerprint(writable: WebhookWritable): string {
  const { maxRequestsPerSecond, ...fields } = writable;
  const hashed = maxRequestsPerSecond === null ? fields : writable;
  return createHash('sha256').update(JSON.stringify(hashed)).digest('hex');
}

/** What a rotation under an Idempotency-Key asked for: a repeat must ask the same of the same webhook. */
function rotationFingerprint(webhookId: string, overlapSeconds: Seconds): string {
  return createHash('sha256')
    .update(JSON.stringify({ rotate: webhookId, overlapSeconds }))
    .digest('hex');
}

/**
 * The claim a write under an Idempotency-Key makes: only the key's hash is stored (a key is a bearer of the
 * secret-bearing answer for the window), and keys older than the window may be used again.
 */
function idempotencyClaim(key: string, requestHash: string, now: Micros): IdempotencyClaim {
  return {
    key: createHash('sha256').update(key).digest('hex'),
    requestHash,
    notBefore: now - LIMITS.idempotencyWindowMicros,
  };
}

function checkIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > LIMITS.idempotencyKeyMaxChars || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ValidationError({
      'Idempotency-Key': [`must be 1 to ${LIMITS.idempotencyKeyMaxChars} visible ASCII characters`],
    });
  }
}

export function createWebhookService(deps: WebhookServiceDeps) {
  const { store, clock, ids, random, secretBox } = deps;

  function checkUrlPolicy(clientUrl: string): void {
    if (deps.allowPrivateUrls) return;
    const refusal = refusalForHost(new URL(clientUrl).hostname);
    if (refusal !== null) throw new ValidationError({ client_url: [refusal] });
  }

  const find = (accountId: number, webhookId: string, kind: WebhookKind = 'job') =>
    findWebhook(store, accountId, webhookId, kind);

  // The store answers with one frozen record until the webhook changes (webhook-cache.ts); its view is made
  // once per record and circuit state too, so the HTTP layer gets the same object back and can keep the JSON
  // it wrote for it.
  const details = new WeakMap<WebhookRecord, { circuit: string; detail: Readonly<WebhookDetail> }>();
  function detailOf(record: WebhookRecord): Readonly<WebhookDetail> {
    const now = nowMicros(clock);
    const circuit = circuitAt(record.endpointHealth, now);
    // What of the body depends on the time: the circuit, and whether a rotation's overlap still lasts.
    const key = `${circuit.state === 'open' ? `open:${circuit.until}` : circuit.state}|${secretOverlapUntil(record, now)}`;
    const known = details.get(record);
    if (known !== undefined && known.circuit === key) return known.detail;
    const detail = Object.freeze(toDetail(record, circuit, now));
    details.set(record, { circuit: key, detail });
    return detail;
  }

  /** The record a create replayed by its Idempotency-Key made, with its secret, unless the key cannot replay it. */
  async function replayed(
    account: AccountRecord,
    outcome: { requestHash: string; webhookId: string },
    requestHash: string,
    kind: WebhookKind,
  ): Promise<{ record: WebhookRecord; hmacSecret: string }> {
    if (outcome.requestHash === `${ROTATED_KEY_PREFIX}${requestHash}`) {
      // The secret of the create is no longer the webhook's, and a rotated secret is shown only by its rotation.
      throw new ConflictError(
        'The webhook created with this Idempotency-Key has had its secret rotated since: its secret is not shown again.',
      );
    }
    if (outcome.requestHash !== requestHash) {
      throw new ConflictError('This Idempotency-Key was already used with a different request body.');
    }
    const record = await store.webhooks.get(account.id, outcome.webhookId);
    if (!record || record.kind !== kind)
      throw new ConflictError('The webhook created with this Idempotency-Key has since been deleted.');
    return { record, hmacSecret: secretBox.open(record.sealedSecret) };
  }

  /** A new webhook of `kind` with a fresh secret, not stored yet. */
  function newRecord(
    account: AccountRecord,
    writable: WebhookWritable,
    kind: WebhookKind,
  ): { record: WebhookRecord; hmacSecret: string } {
    const now = nowMicros(clock);
    const hmacSecret = random(HMAC_SECRET_BYTES).toString('hex');
    const record: WebhookRecord = {
      ...writable,
      id: ids.next('webhook'),
      kind,
      accountId: account.id,
      accountIdentifier: account.identifier,
      sealedSecret: secretBox.seal(hmacSecret),
      previousSealedSecret: null,
      previousSecretUntil: null,
      createdAt: now,
      updatedAt: now,
      ...NEW_DISPATCH_STATE,
      endpointHealth: UNKNOWN_ENDPOINT,
      endpointHealthRevision: 0,
    };
    return { record, hmacSecret };
  }

  function limitReached(account: AccountRecord, limit: number, kind: WebhookKind): ConflictError {
    const what = kind === 'job' ? 'webhooks' : 'operational endpoints';
    return new ConflictError(`Account ${account.id} already has ${limit} ${what}, the most it may have.`);
  }

  /**
   * Stores a new webhook of `kind`: the record and its secret, shown this once. Under an Idempotency-Key, the same
   * key and body within the window answer with the record that create made, and its secret (`replayed`).
   */
  async function createRecord(
    account: AccountRecord,
    writable: WebhookWritable,
    kind: WebhookKind,
    idempotencyKey?: string,
  ): Promise<{ record: WebhookRecord; hmacSecret: string; replayed: boolean }> {
    if (idempotencyKey !== undefined) checkIdempotencyKey(idempotencyKey);
    checkUrlPolicy(writable.clientUrl);
    const created = newRecord(account, writable, kind);
    // A webhook's as it always was, so keys recorded before keep replaying; another kind's apart from it.
    const requestHash =
      kind === 'job' ? fingerprint(writable) : fingerprint({ ...writable, name: `${kind}:${writable.name}` });
    const claim = idempotencyKey === undefined ? null : idempotencyClaim(idempotencyKey, requestHash, nowMicros(clock));
    const outcome = await store.webhooks.create(created.record, {
      maxPerAccount: deps.maxWebhooksPerAccount,
      idempotency: claim,
    });
    switch (outcome.kind) {
      case 'created':
        return { ...created, replayed: false };
      case 'replayed':
        return { ...(await replayed(account, outcome, requestHash, kind)), replayed: true };
      case 'limit_reached':
        throw limitReached(account, outcome.limit, kind);
    }
  }

  async function create(
    account: AccountRecord,
    input: WebhookValues,
    idempotencyKey: string | undefined,
  ): Promise<{ webhook: CreatedWebhook; replayed: boolean }> {
    const { record, hmacSecret, replayed } = await createRecord(account, toWritable(input), 'job', idempotencyKey);
    return { webhook: toCreated(record, hmacSecret), replayed };
  }

  async function update(
    accountId: number,
    webhookId: string,
    input: WebhookValues & { id?: string | null | undefined },
  ): Promise<WebhookSummary> {
    await find(accountId, webhookId);
    if (input.id && input.id !== webhookId) {
      throw new ValidationError({ id: [`id "${input.id}" does not match the webhook in the path (${webhookId})`] });
    }
    return toSummary(await updateRecord(accountId, webhookId, toWritable(input), 'job'));
  }

  /** A full replacement of a webhook of `kind`'s written fields (update-rules.ts). */
  async function updateRecord(
    accountId: number,
    webhookId: string,
    writable: WebhookWritable,
    kind: WebhookKind,
  ): Promise<WebhookRecord> {
    const before = await find(accountId, webhookId, kind);
    checkUrlPolicy(writable.clientUrl);
    const updatedAt = nowMicros(clock);
    const updated = await store.webhooks.update(accountId, webhookId, (current) =>
      planUpdate(current, writable, updatedAt),
    );
    if (!updated) throw webhookNotFound(accountId, webhookId);
    // The store reset the kept health with the update; this instance drops what it knew of the old endpoint, and
    // any read of it from before the reset still to come back.
    if (endpointRenewed(before, updated))
      deps.health.renewed(webhookId, updated.endpointHealth, updated.endpointHealthRevision, updatedAt);
    return updated;
  }

  async function remove(accountId: number, webhookId: string, kind: WebhookKind = 'job'): Promise<void> {
    await find(accountId, webhookId, kind);
    if (!(await store.webhooks.delete(accountId, webhookId))) {
      throw webhookNotFound(accountId, webhookId);
    }
    deps.health.forget(webhookId);
  }

  /** Sends a signed sample event now and reports what the endpoint answered (docs/decisions.md#10-the-test-endpoint). */
  async function test(accountId: number, webhookId: string): Promise<TestResult> {
    const record = await find(accountId, webhookId);
    const nanos = clock.nowNanos();
    const eventId = ids.next('event');
    const body = buildPayload({
      accountId,
      webhookId: record.id,
      webhookName: record.name,
      eventId,
      eventType: 'job.run.completed',
      occurredAtNanos: nanos,
      run: sampleCompletedRun(nanos),
      test: true,
    });
    // Logged like any attempt, but it changes neither the webhook's status nor its failure record.
    const { log } = await makeAttempt(deps, {
      target: { deliveryId: null, webhookId: record.id, eventId, eventType: 'job.run.completed', attempt: 1 },
      url: record.clientUrl,
      body,
      // A sample event of its own: a trace of its own.
      trace: null,
      secrets: (now) => signingSecrets(record, now, (sealed) => secretBox.open(sealed)),
      isTest: true,
      byPerson: true,
    });
    await store.deliveryLog.append(log);
    return { verification_error: log.error, verification_status_code: log.statusCode };
  }

  /**
   * A new secret, returned this once; the replaced one keeps signing beside it for `overlapSeconds`
   * (docs/api-contract.md#15-secret-rotation). A rotation during an overlap drops the secret that was ending. Under
   * an Idempotency-Key, a repeat (its answer was lost) rotates nothing again, which would end the overlap of the
   * secret receivers still hold, and answers with the secret the first one made, unless a rotation since replaced it.
   */
  async function rotateSecret(
    accountId: number,
    webhookId: string,
    overlapSeconds: Seconds,
    kind: WebhookKind = 'job',
    idempotencyKey?: string,
  ): Promise<RotatedSecret> {
    await find(accountId, webhookId, kind);
    if (idempotencyKey !== undefined) checkIdempotencyKey(idempotencyKey);
    const hmacSecret = random(HMAC_SECRET_BYTES).toString('hex');
    const now = nowMicros(clock);
    const until = overlapSeconds > 0 ? now + microsFromSeconds(overlapSeconds) : null;
    const change = (current: WebhookRecord): SecretChange => ({
      sealedSecret: secretBox.seal(hmacSecret),
      previousSealedSecret: until === null ? null : current.sealedSecret,
      previousSecretUntil: until,
      updatedAt: now,
    });
    const rotatedAnswer = (secret: string, expiresAt: Micros | null): RotatedSecret => ({
      id: webhookId,
      hmac_secret: secret,
      previous_secret_expires_at: expiresAt === null ? null : String(expiresAt),
    });
    if (idempotencyKey === undefined) {
      if (!(await store.webhooks.changeSecret(accountId, webhookId, change)))
        throw webhookNotFound(accountId, webhookId);
      return rotatedAnswer(hmacSecret, until);
    }
    const requestHash = rotationFingerprint(webhookId, overlapSeconds);
    const outcome = await store.webhooks.changeSecretOnce(accountId, webhookId, change, {
      ...idempotencyClaim(idempotencyKey, requestHash, now),
      at: now,
    });
    if (outcome === null) throw webhookNotFound(accountId, webhookId);
    const { record, replayed } = outcome;
    if (replayed === null) return rotatedAnswer(hmacSecret, until);
    if (replayed.requestHash === `${ROTATED_KEY_PREFIX}${requestHash}`)
      throw new ConflictError(
        'The secret made with this Idempotency-Key has been replaced by another rotation since: it is not shown again.',
      );
    if (replayed.requestHash !== requestHash)
      throw new ConflictError('This Idempotency-Key was already used with a different request.');
    // The overlap as it stands: ended early since, it is null.
    return rotatedAnswer(secretBox.open(record.sealedSecret), secretOverlapUntil(record, now));
  }

  /** Ends a rotation's overlap now: from the next attempt on, only the new secret signs. */
  async function endSecretOverlap(
    accountId: number,
    webhookId: string,
    kind: WebhookKind = 'job',
  ): Promise<EndedSecretOverlap> {
    await find(accountId, webhookId, kind);
    const now = nowMicros(clock);
    const ended = await store.webhooks.changeSecret(accountId, webhookId, (current) => ({
      sealedSecret: current.sealedSecret,
      previousSealedSecret: null,
      previousSecretUntil: null,
      updatedAt: now,
    }));
    if (!ended) throw webhookNotFound(accountId, webhookId);
    return { id: webhookId, previous_secret_expires_at: null };
  }

  return {
    create,
    createRecord,
    updateRecord,
    find,
    update,
    remove,
    test,
    rotateSecret,
    endSecretOverlap,
    get: async (accountId: number, webhookId: string): Promise<Readonly<WebhookDetail>> =>
      detailOf(await find(accountId, webhookId)),
    list: async (accountId: number, page: { offset: number; limit: number }) => {
      const { items, total } = await store.webhooks.list(accountId, page, 'job');
      const now = nowMicros(clock);
      return {
        items: items.map((record) => toDetail(record, circuitAt(record.endpointHealth, now), now)),
        total,
      };
    },
  };
}
