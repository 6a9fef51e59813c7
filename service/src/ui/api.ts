// The browser's client of the management API: the same paths and envelopes as every other client, with the
// signed-in token. Responses are typed by the contract's schemas; failures become one ApiProblem.
import type { AccountView } from '@jobhooks/client/contract/account';
import {
  EVENT_TYPES,
  OPERATIONAL_EVENT_TYPES,
  type EventTypeName,
  type OperationalEventTypeName,
} from '@jobhooks/client/contract/closed-lists';
import type {
  CreatedOperationalEndpoint,
  OperationalEndpoint,
  OperationalEndpointBody,
} from '@jobhooks/client/contract/operational';
import type { DeliveryAttemptView, DeliveryDetail, RecoveredDeliveries } from '@jobhooks/client/contract/delivery';
import type { ErrorEnvelope, FieldErrors } from '@jobhooks/client/contract/envelope';
import type { AccountStatistics, StatisticsWindow, WebhookStatistics } from '@jobhooks/client/contract/statistics';
import type {
  CreatedWebhook,
  CreateWebhookBody,
  EndedSecretOverlap,
  RotatedSecret,
  WebhookDetail,
  WebhookSummary,
  TestResult,
} from '@jobhooks/client/contract/webhook';

/** What went wrong with a request, in words a person can act on. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: FieldErrors = {},
  ) {
    super(message);
    this.name = 'ApiProblem';
  }
}

export interface Page<T> {
  items: T[];
  total: number;
}

/** A webhook as the create and update endpoints take it. */
export type WebhookFields = Omit<CreateWebhookBody, 'id'>;

/**
 * What the form sends: job ids as typed, so that a wrong entry is named by the API's own validation
 * rather than by a second copy of it here.
 */
export type WebhookDraft = Omit<WebhookFields, 'job_ids' | 'max_requests_per_second'> & {
  job_ids: Array<number | string>;
  max_requests_per_second: number | string | null;
};

/**
 * The delivery log's filters as the API takes them (docs/api-contract.md#11-delivery-log-and-redelivery); `since` and
 * `until` are microseconds as digits or RFC 3339 date-times. Absent ones do not filter.
 */
export interface DeliveryFilters {
  status?: 'succeeded' | 'failed';
  event_type?: EventTypeName | OperationalEventTypeName;
  since?: string;
  until?: string;
}

/**
 * Whose delivery log and secret: a webhook's or an operational endpoint's. The views take this, not the webhook,
 * so that one log view and one rotation serve both; the calls differ only in the path they are made under.
 */
export interface DeliveryOwner {
  id: string;
  name: string;
  /** The event types its log may be filtered by. */
  eventTypes: readonly (EventTypeName | OperationalEventTypeName)[];
  deliveries(offset: number, limit: number, filters?: DeliveryFilters): Promise<Page<DeliveryAttemptView>>;
  delivery(deliveryId: string): Promise<DeliveryDetail>;
  redeliver(deliveryId: string): Promise<DeliveryAttemptView>;
  rotateSecret(overlapSeconds: number | string): Promise<RotatedSecret>;
  /** Recovery of failed deliveries over a window: webhooks only. */
  recover?(since: string | undefined, until: string | undefined): Promise<RecoveredDeliveries>;
}

interface ListBody<T> {
  data: T[];
  extra: { pagination: { total_count: number } };
}

async function problemOf(response: Response): Promise<ApiProblem> {
  const text = await response.text();
  try {
    const envelope = JSON.parse(text) as ErrorEnvelope;
    return new ApiProblem(response.status, envelope.status.user_message, envelope.extra?.field_errors ?? {});
  } catch {
    return new ApiProblem(response.status, `The service answered ${response.status} ${response.statusText}.`);
  }
}

export class Api {
  constructor(
    private readonly token: string,
    private readonly accountId: number = 0,
  ) {}

  /** The same client for the account the token belongs to. */
  forAccount(accountId: number): Api {
    return new Api(this.token, accountId);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`/api${path}`, {
        method,
        headers: {
          authorization: `Token ${this.token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        cache: 'no-store',
      });
    } catch {
      throw new ApiProblem(0, 'The service could not be reached. Check that it is running, then try again.');
    }
    if (!response.ok) throw await problemOf(response);
    return (await response.json()) as T;
  }

  private get webhooks(): string {
    return `/v3/accounts/${this.accountId}/webhooks`;
  }

  async accounts(): Promise<AccountView[]> {
    return (await this.request<{ data: AccountView[] }>('GET', '/v2/accounts/')).data;
  }

  /** Every webhook of the account: at most 1,000, so at most ten pages of 100, the others asked for at once. */
  async allWebhooks(): Promise<WebhookDetail[]> {
    const pageAt = (offset: number) =>
      this.request<ListBody<WebhookDetail>>('GET', `${this.webhooks}/subscriptions?limit=100&offset=${offset}`);
    const first = await pageAt(0);
    const all = [...first.data];
    const total = first.extra.pagination.total_count;
    const offsets: number[] = [];
    for (let offset = all.length; offset < total; offset += 100) offsets.push(offset);
    for (const page of await Promise.all(offsets.map(pageAt))) all.push(...page.data);
    // Webhooks made or deleted between the pages may shift them: ids seen twice are kept once.
    const seen = new Set<string>();
    return all.filter((webhook) => !seen.has(webhook.id) && seen.add(webhook.id) !== undefined);
  }

  /** The account's deliveries per hour over the window, and each webhook's summary (docs/api-contract.md#17-delivery-statistics). */
  async accountStatistics(window: StatisticsWindow): Promise<AccountStatistics> {
    return (await this.request<{ data: AccountStatistics }>('GET', `${this.webhooks}/statistics?window=${window}`))
      .data;
  }

  /** One webhook's deliveries per hour over the window, with its circuit and archive markers. */
  async webhookStatistics(id: string, window: StatisticsWindow): Promise<WebhookStatistics> {
    const path = `${this.webhooks}/subscription/${encodeURIComponent(id)}/statistics?window=${window}`;
    return (await this.request<{ data: WebhookStatistics }>('GET', path)).data;
  }

  async webhook(id: string): Promise<WebhookDetail> {
    return (
      await this.request<{ data: WebhookDetail }>('GET', `${this.webhooks}/subscription/${encodeURIComponent(id)}`)
    ).data;
  }

  async create(fields: WebhookDraft): Promise<CreatedWebhook> {
    return (await this.request<{ data: CreatedWebhook }>('POST', `${this.webhooks}/subscriptions`, fields)).data;
  }

  async update(id: string, fields: WebhookDraft): Promise<WebhookSummary> {
    return (
      await this.request<{ data: WebhookSummary }>(
        'PUT',
        `${this.webhooks}/subscription/${encodeURIComponent(id)}`,
        fields,
      )
    ).data;
  }

  async remove(id: string): Promise<void> {
    await this.request('DELETE', `${this.webhooks}/subscription/${encodeURIComponent(id)}`);
  }

  /**
   * A new secret, answered this once; the replaced one keeps signing for `overlapSeconds` (checked by the API, so
   * a wrong entry is sent as typed and named by its field error). Sent once: fetch never repeats a POST.
   */
  private async rotateSecretAt(owner: string, overlapSeconds: number | string): Promise<RotatedSecret> {
    const body = { overlap_seconds: overlapSeconds };
    return (await this.request<{ data: RotatedSecret }>('POST', `${owner}/secret/rotate`, body)).data;
  }

  /** Ends a rotation's overlap now: only the new secret signs from then on. */
  async endSecretOverlap(id: string): Promise<EndedSecretOverlap> {
    return (
      await this.request<{ data: EndedSecretOverlap }>(
        'DELETE',
        `${this.webhooks}/subscription/${encodeURIComponent(id)}/secret/previous`,
      )
    ).data;
  }

  async test(id: string): Promise<TestResult> {
    return (
      await this.request<{ data: TestResult }>('GET', `${this.webhooks}/subscription/${encodeURIComponent(id)}/test`)
    ).data;
  }

  private async deliveriesAt(
    owner: string,
    offset: number,
    limit: number,
    filters: DeliveryFilters = {},
  ): Promise<Page<DeliveryAttemptView>> {
    const query = new URLSearchParams({ offset: String(offset), limit: String(limit) });
    for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
    const body = await this.request<ListBody<DeliveryAttemptView>>('GET', `${owner}/deliveries?${query.toString()}`);
    return { items: body.data, total: body.extra.pagination.total_count };
  }

  /** One delivery as sent: the request, and every attempt with what the endpoint answered, oldest first. */
  private async deliveryAt(owner: string, deliveryId: string): Promise<DeliveryDetail> {
    const path = `${owner}/deliveries/${encodeURIComponent(deliveryId)}`;
    return (await this.request<{ data: DeliveryDetail }>('GET', path)).data;
  }

  private async redeliverAt(owner: string, deliveryId: string): Promise<DeliveryAttemptView> {
    const path = `${owner}/deliveries/${encodeURIComponent(deliveryId)}/retry`;
    return (await this.request<{ data: DeliveryAttemptView }>('POST', path)).data;
  }

  /** The calls every owner of a log and a secret has, under the owner's path. */
  private ownerAt(
    path: string,
    owner: Pick<DeliveryOwner, 'id' | 'name' | 'eventTypes'>,
  ): Omit<DeliveryOwner, 'recover'> {
    return {
      ...owner,
      deliveries: (offset, limit, filters) => this.deliveriesAt(path, offset, limit, filters),
      delivery: (deliveryId) => this.deliveryAt(path, deliveryId),
      redeliver: (deliveryId) => this.redeliverAt(path, deliveryId),
      rotateSecret: (overlapSeconds) => this.rotateSecretAt(path, overlapSeconds),
    };
  }

  /** A webhook's log and secret; its log's filters offer the job-run event types. */
  webhookOwner(webhook: { id: string; name: string }): DeliveryOwner {
    const path = `${this.webhooks}/subscription/${encodeURIComponent(webhook.id)}`;
    return {
      ...this.ownerAt(path, { id: webhook.id, name: webhook.name, eventTypes: EVENT_TYPES }),
      recover: (since, until) => this.recover(webhook.id, since, until),
    };
  }

  /** An operational endpoint's log and secret; its log's filters offer the operational event types. */
  operationalOwner(endpoint: { id: string; name: string }): DeliveryOwner {
    const path = `${this.operational}/${encodeURIComponent(endpoint.id)}`;
    return this.ownerAt(path, { id: endpoint.id, name: endpoint.name, eventTypes: OPERATIONAL_EVENT_TYPES });
  }

  /**
   * Sends every failed delivery created in [since, until) once more (docs/api-contract.md#16-recovering-failed-deliveries).
   * The times go as given, for the API to name a wrong one at its field; an absent `since` is the API's to refuse too.
   */
  async recover(id: string, since: string | undefined, until: string | undefined): Promise<RecoveredDeliveries> {
    const path = `${this.webhooks}/subscription/${encodeURIComponent(id)}/deliveries/recover`;
    return (
      await this.request<{ data: RecoveredDeliveries }>('POST', path, {
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
      })
    ).data;
  }

  private get operational(): string {
    return `/v3/accounts/${this.accountId}/operational-endpoints`;
  }

  /** The account's first 100 operational endpoints (docs/operational-webhooks.md): a handful in practice. */
  async operationalEndpoints(): Promise<OperationalEndpoint[]> {
    return (await this.request<ListBody<OperationalEndpoint>>('GET', `${this.operational}?limit=100`)).data;
  }

  async createOperationalEndpoint(fields: {
    name: string;
    client_url: string;
    event_types: OperationalEventTypeName[];
  }): Promise<CreatedOperationalEndpoint> {
    return (await this.request<{ data: CreatedOperationalEndpoint }>('POST', this.operational, fields)).data;
  }

  async operationalEndpoint(id: string): Promise<OperationalEndpoint> {
    const path = `${this.operational}/${encodeURIComponent(id)}`;
    return (await this.request<{ data: OperationalEndpoint }>('GET', path)).data;
  }

  /** A full replacement, as for a webhook: a new URL or active=true reactivates an archived endpoint. */
  async updateOperationalEndpoint(id: string, fields: OperationalEndpointBody): Promise<OperationalEndpoint> {
    const path = `${this.operational}/${encodeURIComponent(id)}`;
    return (await this.request<{ data: OperationalEndpoint }>('PUT', path, fields)).data;
  }

  async removeOperationalEndpoint(id: string): Promise<void> {
    await this.request('DELETE', `${this.operational}/${encodeURIComponent(id)}`);
  }
}

/** The writable fields of a webhook as read, for a PUT that changes only what the caller overrides. */
export function fieldsOf(webhook: WebhookDetail, changes: Partial<WebhookFields> = {}): WebhookFields {
  return {
    name: webhook.name,
    description: webhook.description,
    client_url: webhook.client_url,
    event_types: webhook.event_types,
    job_ids: webhook.job_ids.map(Number),
    active: webhook.active,
    // A PUT replaces every field: the rate goes back as read, or a pause would lift it.
    max_requests_per_second: webhook.max_requests_per_second ?? null,
    ...changes,
  };
}
