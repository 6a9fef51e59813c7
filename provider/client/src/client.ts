// A typed client of the webhooks management API, built on the service's own zod schemas; the Pulumi provider,
// the CDKTF tooling and the examples all use it. Retries what is safe to retry and never duplicates a create.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  AccountStatistics,
  AccountView,
  CreatedWebhook,
  CreateWebhookBody,
  dataEnvelope,
  DeletedWebhook,
  EndedSecretOverlap,
  ErrorEnvelope,
  ErrorStatus,
  ROUTE_NOT_FOUND,
  IngestedEvent,
  IngestEventBody,
  RotatedSecret,
  RotateSecretBody,
  listEnvelope,
  WebhookDetail,
  WebhookSummary,
  TestResult,
  UpdateWebhookBody,
  type StatisticsWindow,
  WebhookStatistics,
} from './contract';
import { CreatedOperationalEndpoint, OperationalEndpoint, OperationalEndpointBody } from './contract/operational';
import { hostUrlProblem } from './host-url';
import { tokenAsSent, tokenProblem } from './api-token';
import { parseRetryAfterSeconds } from './contract/retry-after';

/** The writable fields of a webhook as a caller writes them (job ids as numbers, optional fields optional). */
export type WebhookInput = z.input<typeof CreateWebhookBody>;

/** An operational endpoint as a caller declares it (jobhooks' own, docs/operational-webhooks.md). */
export type OperationalEndpointInput = z.input<typeof OperationalEndpointBody>;

/** One job-run event as a caller posts it: its type and the run. */
export type IngestInput = z.input<typeof IngestEventBody>;

export interface ClientOptions {
  /** The API base URL as the public providers take it, ending in `/api` (e.g. `http://127.0.0.1:8080/api`). */
  hostUrl: string;
  accountId: number;
  token: string;
  /** Attempts per request, the first included. */
  maxAttempts?: number;
  /** The longest wait between attempts, including a server's Retry-After. */
  maxRetryDelayMs?: number;
  /** The first backoff delay, doubling after each retry (a server's Retry-After takes precedence). */
  firstRetryDelayMs?: number;
  /** Statuses to retry instead of the default 408, 429, 500, 502, 503, 504. */
  retryableStatuses?: readonly number[];
  /** A limit for each attempt, from sending the request to the end of the answer, in ms; none when 0 or unset. */
  timeoutMs?: number;
  /** Injected so tests can see the waits without waiting. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Told as each wait before a retry begins, so a command that waits can say what for and how long (a CI log
   * that shows nothing for minutes reads as a hung job).
   */
  onRetryWait?: (wait: RetryWait) => void;
}

/** A wait before the next attempt of a request: how long, why, and which attempt follows. */
export interface RetryWait {
  /** What the request does, e.g. "Create webhook". */
  operation: string;
  waitMs: number;
  /** The attempt that follows the wait, and how many there are at most. */
  nextAttempt: number;
  maxAttempts: number;
  /** The server answered `status` (with its Retry-After, when it sent one), or could not be reached. */
  cause: { kind: 'status'; status: number; retryAfter: string | null } | { kind: 'unreachable'; error: string };
}

/** Statuses worth another try: the request may not have been processed, or the server asked to wait. */
export const DEFAULT_RETRYABLE_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504];
const DEFAULT_MAX_ATTEMPTS = 4;
/** The first wait before a retry of a request, doubling after each. */
export const FIRST_RETRY_DELAY_MS = 500;
/** The API's rate-limit cooldown is 300 s; waiting it out beats failing a long `pulumi up`. */
const DEFAULT_MAX_RETRY_DELAY_MS = 300_000;

/** A refusal by the API, with its status and the server's own message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly userMessage: string,
    readonly developerMessage: string | null,
    readonly fieldErrors: Record<string, string[]>,
    readonly operation: string,
  ) {
    super(`${operation} failed with HTTP ${status}: ${userMessage}`);
    this.name = 'ApiError';
  }
}

/**
 * The server answered with a success status but not with the API's JSON (a web page, another service's JSON):
 * most likely a wrong host URL.
 */
export class UnexpectedAnswer extends Error {
  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    super(`${operation}: the server's answer is not the webhooks API's (${(cause as Error).message.split('\n')[0]})`, {
      cause,
    });
    this.name = 'UnexpectedAnswer';
  }
}

/** A request that breaks the API's contract, refused before anything is sent, as one sentence naming the field. */
export class InvalidRequest extends Error {
  constructor(
    readonly operation: string,
    readonly issues: readonly z.core.$ZodIssue[],
  ) {
    const issue = issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    super(`${operation} was not sent: ${where}${issue?.message ?? 'the request breaks the API contract'}.`);
    this.name = 'InvalidRequest';
  }
}

/** The server's answer parsed with `schema`; anything else is an UnexpectedAnswer. */
function answerOf<T extends z.ZodType>(schema: T, text: string, operation: string): z.output<T> {
  try {
    return schema.parse(JSON.parse(text)) as z.output<T>;
  } catch (error) {
    throw new UnexpectedAnswer(operation, error);
  }
}

/** How one request is sent: extra headers, whether only a 429 is retried, and a signal that gives it up. */
interface SendOptions {
  headers?: Record<string, string>;
  onlyIfRefused?: boolean;
  signal?: AbortSignal | undefined;
  /** Told of this request's own retry waits, besides the client's onRetryWait. */
  onRetryWait?: ((wait: RetryWait) => void) | undefined;
}

/** `waiting`, or the signal's reason as soon as it aborts. */
function untilAborted(waiting: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return waiting;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    waiting.then(
      () => (signal.removeEventListener('abort', abort), resolve()),
      (error: unknown) => (signal.removeEventListener('abort', abort), reject(error)),
    );
  });
}

function retryAfterMs(header: string | null): number | null {
  const seconds = parseRetryAfterSeconds(header, Date.now());
  return seconds === null ? null : seconds * 1000;
}

/**
 * Why a request got no answer. fetch says only "fetch failed" and keeps the reason (`connect ECONNREFUSED
 * 127.0.0.1:8080`, a DNS failure) as its cause.
 */
function unreachableReason(error: unknown): string {
  // Not `instanceof Error`: fetch's errors come from Node.js's own realm, and the client may run in another (a
  // test runner's vm context).
  const { message, cause } = error as { message?: unknown; cause?: { message?: unknown; code?: unknown } };
  for (const reason of [cause?.message, cause?.code, message]) {
    if (typeof reason === 'string' && reason !== '') return reason;
  }
  return String(error);
}

/**
 * The longest limit a timer keeps, in ms (about 24.8 days): AbortSignal.timeout takes up to 2^32 - 1, but a timer
 * of more than this fires at once.
 */
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

/** The caller's signal and the attempt's time limit, either of which gives the attempt up. */
function attemptSignal(signal: AbortSignal | undefined, timeoutMs: number | undefined): AbortSignal | undefined {
  // Whole milliseconds: AbortSignal.timeout refuses a fraction (timeout_seconds = 1.005 makes 1004.999... ms).
  const limit =
    timeoutMs === undefined || !(timeoutMs > 0)
      ? undefined
      : AbortSignal.timeout(Math.min(Math.ceil(timeoutMs), LONGEST_TIMEOUT_MS));
  if (signal === undefined || limit === undefined) return signal ?? limit;
  return AbortSignal.any([signal, limit]);
}

function backoffMs(attempt: number, firstDelayMs: number): number {
  const base = firstDelayMs * 2 ** (attempt - 1);
  return base + Math.random() * base * 0.25;
}

/** Parsed JSON, or undefined when `text` is not JSON. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A 404 that the API answered itself, in its envelope: what was asked for does not exist. A 404 in another shape
 * comes from something else at the host URL (a reverse proxy's wrong prefix, another server), and says nothing of
 * whether it exists: taken for "gone", it would drop every webhook from a tool's state, or delete none and say done.
 */
function notFound(status: number, text: string, operation: string, base: string): boolean {
  if (status !== 404) return false;
  const said = ErrorStatus.safeParse(jsonOf(text)).data?.status;
  if (said?.code === 404 && said.developer_message !== ROUTE_NOT_FOUND) return true;
  const answer = said === undefined ? "without the API's error envelope" : 'that it has no such route';
  throw new ApiError(
    404,
    `${base} answered 404 ${answer}, so whether it exists is unknown; check that the host URL is the API's base URL, ending in /api`,
    null,
    {},
    operation,
  );
}

function apiErrorFrom(status: number, text: string, operation: string): ApiError {
  // Not JSON (a proxy's error page, say): the start of it is reported.
  const json = jsonOf(text);
  const parsed = ErrorEnvelope.safeParse(json);
  if (parsed.success) {
    const { status: s } = parsed.data;
    return new ApiError(status, s.user_message, s.developer_message, parsed.data.extra?.field_errors ?? {}, operation);
  }
  return new ApiError(status, text.slice(0, 200) || `HTTP ${status}`, null, {}, operation);
}

export type WebhooksClient = ReturnType<typeof createWebhooksClient>;

/** How a rotation is sent: under an Idempotency-Key (`rotationIdempotencyKey` makes one for a tool's trigger). */
export interface RotationOptions {
  idempotencyKey?: string;
}

/** A rotation under a key is retried like any request; without one, only after a 429, which says nothing was done. */
function rotationSending({ idempotencyKey }: RotationOptions): SendOptions {
  return idempotencyKey === undefined ? { onlyIfRefused: true } : { headers: { 'idempotency-key': idempotencyKey } };
}

/**
 * A webhook's body as sent: jobhooks' own max_requests_per_second only when set. Left out, it means no limit to
 * jobhooks, the same as null; and dbt Cloud, which has no such field, gets the body it knows.
 */
function onTheWire<T extends { max_requests_per_second: number | null }>(
  body: T,
): T | Omit<T, 'max_requests_per_second'> {
  if (body.max_requests_per_second !== null) return body;
  const { max_requests_per_second: _none, ...dbtFields } = body;
  return dbtFields;
}

export function createWebhooksClient(options: ClientOptions) {
  const problem = hostUrlProblem(options.hostUrl);
  if (problem !== null) throw new Error(problem);
  // The tools check it with their setting's name first; this is the last guard, before any request.
  const badToken = tokenProblem(options.token);
  if (badToken !== null) throw new Error(`The API token is wrong: ${badToken}`);
  const token = tokenAsSent(options.token);
  const base = options.hostUrl.replace(/\/+$/, '');
  const webhooks = `${base}/v3/accounts/${options.accountId}/webhooks`;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const maxDelay = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const retryable = new Set(options.retryableStatuses ?? DEFAULT_RETRYABLE_STATUSES);
  const firstDelayMs = options.firstRetryDelayMs ?? FIRST_RETRY_DELAY_MS;

  /**
   * Sends one request, retrying 408/429/5xx and connection failures; resolves with the status and text. With
   * `onlyIfRefused`, it retries only a 429, which says the request was not processed: a request that must not
   * be made twice (a rotation) is never repeated after an answer that may hide a success.
   */
  async function send(method: string, url: string, operation: string, body?: unknown, how: SendOptions = {}) {
    const { headers = {}, onlyIfRefused = false, signal, onRetryWait } = how;
    for (let attempt = 1; ; attempt += 1) {
      let waitMs: number;
      let cause: RetryWait['cause'];
      signal?.throwIfAborted();
      try {
        // Node.js's own fetch: the client needs no HTTP library of its own, and a program that never calls the API
        // (a Terraform provider asked only for its schema) never loads one. A redirect is not followed: the API sends
        // none, so one comes from something else at the host URL, and the caller is told its status.
        const response = await fetch(url, {
          method,
          headers: {
            authorization: `Token ${token}`,
            accept: 'application/json',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          redirect: 'manual',
          signal: attemptSignal(signal, options.timeoutMs) ?? null,
        });
        const text = await response.text();
        const retry = onlyIfRefused ? response.status === 429 : retryable.has(response.status);
        if (!retry || attempt >= maxAttempts) return { status: response.status, text };
        const retryAfter = response.headers.get('retry-after');
        waitMs = retryAfterMs(retryAfter) ?? backoffMs(attempt, firstDelayMs);
        cause = { kind: 'status', status: response.status, retryAfter };
      } catch (error) {
        signal?.throwIfAborted();
        if (attempt >= maxAttempts || onlyIfRefused)
          throw new Error(`${operation} failed: could not reach ${base} (${unreachableReason(error)})`);
        waitMs = backoffMs(attempt, firstDelayMs);
        cause = { kind: 'unreachable', error: unreachableReason(error) };
      }
      waitMs = Math.min(waitMs, maxDelay);
      const wait = { operation, waitMs, nextAttempt: attempt + 1, maxAttempts, cause };
      options.onRetryWait?.(wait);
      onRetryWait?.(wait);
      await untilAborted(sleep(waitMs), signal);
    }
  }

  /** Sends and parses a success with `schema`; any other status becomes an ApiError. */
  async function call<T extends z.ZodType>(
    schema: T,
    expected: number,
    method: string,
    url: string,
    operation: string,
    body?: unknown,
    how?: SendOptions,
  ) {
    const { status, text } = await send(method, url, operation, body, how);
    if (status !== expected) throw apiErrorFrom(status, text, operation);
    return answerOf(schema, text, operation);
  }

  const single = (id: string) => `${webhooks}/subscription/${encodeURIComponent(id)}`;
  const endpoints = `${base}/v3/accounts/${options.accountId}/operational-endpoints`;
  const endpoint = (id: string) => `${endpoints}/${encodeURIComponent(id)}`;

  /** jobhooks' own: the account's operational endpoints (docs/operational-webhooks.md). */
  const operationalEndpoints = {
    /**
     * The answer carries the endpoint's hmac_secret, shown this once. One Idempotency-Key per call, reused by its
     * retries, as a webhook's create: a create retried after a lost answer never makes a second endpoint.
     */
    async create(input: OperationalEndpointInput): Promise<CreatedOperationalEndpoint> {
      const body = OperationalEndpointBody.parse(input);
      const operation = 'Create operational endpoint';
      const how = { headers: { 'idempotency-key': randomUUID() } };
      return (await call(dataEnvelope(CreatedOperationalEndpoint), 201, 'POST', endpoints, operation, body, how)).data;
    },
    /** The endpoint, or null when it does not exist. */
    async get(id: string): Promise<OperationalEndpoint | null> {
      const operation = `Read operational endpoint ${id}`;
      const { status, text } = await send('GET', endpoint(id), operation);
      if (notFound(status, text, operation, base)) return null;
      if (status !== 200) throw apiErrorFrom(status, text, operation);
      return answerOf(dataEnvelope(OperationalEndpoint), text, operation).data;
    },
    async list(page: { offset?: number; limit?: number } = {}) {
      const query = new URLSearchParams({ offset: String(page.offset ?? 0), limit: String(page.limit ?? 100) });
      return call(listEnvelope(OperationalEndpoint), 200, 'GET', `${endpoints}?${query}`, 'List operational endpoints');
    },
    /** Full replacement, as a webhook's update. */
    async update(id: string, input: OperationalEndpointInput): Promise<OperationalEndpoint> {
      const body = OperationalEndpointBody.parse(input);
      const operation = `Update operational endpoint ${id}`;
      return (await call(dataEnvelope(OperationalEndpoint), 200, 'PUT', endpoint(id), operation, body)).data;
    },
    /** A new secret, the old one signing beside it for the overlap; retried as a webhook's rotation is. */
    async rotateSecret(id: string, overlapSeconds?: number, how: RotationOptions = {}): Promise<RotatedSecret> {
      const body = RotateSecretBody.parse(overlapSeconds === undefined ? {} : { overlap_seconds: overlapSeconds });
      const operation = `Rotate the secret of operational endpoint ${id}`;
      return (
        await call(
          dataEnvelope(RotatedSecret),
          200,
          'POST',
          `${endpoint(id)}/secret/rotate`,
          operation,
          body,
          rotationSending(how),
        )
      ).data;
    },
    /** True when deleted now, false when it was already gone. */
    async delete(id: string): Promise<boolean> {
      const operation = `Delete operational endpoint ${id}`;
      const { status, text } = await send('DELETE', endpoint(id), operation);
      if (notFound(status, text, operation, base)) return false;
      if (status !== 200) throw apiErrorFrom(status, text, operation);
      return true;
    },
  };

  return {
    operationalEndpoints,
    /** Creates a webhook. One Idempotency-Key per call, reused by its retries, so a retried create never duplicates. */
    async create(input: WebhookInput): Promise<CreatedWebhook> {
      const body = onTheWire(CreateWebhookBody.parse(input));
      const envelope = await call(
        dataEnvelope(CreatedWebhook),
        201,
        'POST',
        `${webhooks}/subscriptions`,
        'Create webhook',
        body,
        { headers: { 'idempotency-key': randomUUID() } },
      );
      return envelope.data;
    },
    /** The webhook, or null when it does not exist (deleted, or never existed). */
    async get(id: string): Promise<WebhookDetail | null> {
      const { status, text } = await send('GET', single(id), `Read webhook ${id}`);
      if (notFound(status, text, `Read webhook ${id}`, base)) return null;
      if (status !== 200) throw apiErrorFrom(status, text, `Read webhook ${id}`);
      return answerOf(dataEnvelope(WebhookDetail), text, `Read webhook ${id}`).data;
    },
    /** Full replacement: an omitted optional field takes its default. */
    async update(id: string, input: WebhookInput): Promise<WebhookSummary> {
      const body = onTheWire(UpdateWebhookBody.parse(input));
      return (await call(dataEnvelope(WebhookSummary), 200, 'PUT', single(id), `Update webhook ${id}`, body)).data;
    },
    /** True when deleted now, false when it was already gone. */
    async delete(id: string): Promise<boolean> {
      const { status, text } = await send('DELETE', single(id), `Delete webhook ${id}`);
      if (notFound(status, text, `Delete webhook ${id}`, base)) return false;
      if (status !== 200) throw apiErrorFrom(status, text, `Delete webhook ${id}`);
      answerOf(DeletedWebhook, text, `Delete webhook ${id}`);
      return true;
    },
    /**
     * jobhooks' own: a new secret, returned this once; the old one keeps signing beside it for `overlapSeconds`
     * (a day when omitted; 0 switches at once). With `idempotencyKey`, retried as a create is: a repeat answers with
     * the first one's secret and rotates nothing again. Without, retried only after a 429: a lost answer would lose
     * the new secret, and a second rotation would end the first one's overlap.
     */
    async rotateSecret(id: string, overlapSeconds?: number, how: RotationOptions = {}): Promise<RotatedSecret> {
      const body = RotateSecretBody.parse(overlapSeconds === undefined ? {} : { overlap_seconds: overlapSeconds });
      const operation = `Rotate the secret of webhook ${id}`;
      const { status, text } = await send('POST', `${single(id)}/secret/rotate`, operation, body, rotationSending(how));
      if (status !== 200) throw apiErrorFrom(status, text, operation);
      return answerOf(dataEnvelope(RotatedSecret), text, operation).data;
    },
    /** jobhooks' own: ends a rotation's overlap now, so only the new secret signs. */
    async endSecretOverlap(id: string): Promise<EndedSecretOverlap> {
      const operation = `End the secret overlap of webhook ${id}`;
      return (await call(dataEnvelope(EndedSecretOverlap), 200, 'DELETE', `${single(id)}/secret/previous`, operation))
        .data;
    },
    async test(id: string): Promise<TestResult> {
      return (await call(dataEnvelope(TestResult), 200, 'GET', `${single(id)}/test`, `Test webhook ${id}`)).data;
    },
    async list(page: { offset?: number; limit?: number } = {}) {
      const query = new URLSearchParams({ offset: String(page.offset ?? 0), limit: String(page.limit ?? 100) });
      return call(listEnvelope(WebhookDetail), 200, 'GET', `${webhooks}/subscriptions?${query}`, 'List webhooks');
    },
    /**
     * Posts one job-run event (a token with the ingest permission). Retried like a read: the service takes an
     * event in once per (run.runId, event_type), so a repeat after a lost answer queues nothing new and answers
     * `duplicate: true` with the first event's id. `signal` gives up the post (its retries and waits too).
     */
    async ingest(
      input: IngestInput,
      how: { signal?: AbortSignal; onRetryWait?: (wait: RetryWait) => void } = {},
    ): Promise<IngestedEvent> {
      const operation = `Post ${input.event_type} of run ${input.run.runId}`;
      const parsed = IngestEventBody.safeParse(input);
      if (!parsed.success) throw new InvalidRequest(operation, parsed.error.issues);
      const body = parsed.data;
      return (await call(dataEnvelope(IngestedEvent), 202, 'POST', `${webhooks}/events`, operation, body, how)).data;
    },
    /**
     * jobhooks' own: the account's attempts and deliveries per hour over the window (24h or 7d), and each webhook's
     * summary (docs/api-contract.md#17-delivery-statistics).
     */
    async accountStatistics(window: StatisticsWindow = '24h'): Promise<AccountStatistics> {
      const url = `${webhooks}/statistics?window=${window}`;
      return (await call(dataEnvelope(AccountStatistics), 200, 'GET', url, 'Read the account statistics')).data;
    },
    /** jobhooks' own: one webhook's attempts and deliveries per hour over the window, with its circuit and archive. */
    async webhookStatistics(id: string, window: StatisticsWindow = '24h'): Promise<WebhookStatistics> {
      const operation = `Read the statistics of webhook ${id}`;
      const url = `${single(id)}/statistics?window=${window}`;
      return (await call(dataEnvelope(WebhookStatistics), 200, 'GET', url, operation)).data;
    },
    /** The accounts the token can see; the public Terraform provider checks its account id here first. */
    async accounts(): Promise<AccountView[]> {
      return (await call(dataEnvelope(z.array(AccountView)), 200, 'GET', `${base}/v2/accounts/`, 'List accounts')).data;
    },
  };
}
