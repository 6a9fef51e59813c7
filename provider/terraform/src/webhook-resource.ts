// `dbtcloud_webhook` as Terraform sees it: plan, apply, refresh, import and validation over the shared API
// client, with the public provider's behaviour (computed values unknown at plan, everything updated in place,
// hmac_secret kept from create, a new client_url for a webhook that stays inactive refused at plan time), and
// jobhooks' own delivery rate (max_requests_per_second, a writable field like the others) and secret rotation: a new
// secret_rotation value rotates hmac_secret in place.
import type { WebhookDetail, WebhookSummary } from '@jobhooks/client/contract';
import type { WebhookInput, WebhooksClient } from '@jobhooks/client';
import { outputTime, webhookProblems } from '@jobhooks/client';
import { type Diagnostic, diagnosticsOf, errorAt } from './diagnostics';
import {
  applyChange,
  commonBody,
  commonProperties,
  importById,
  isKnown,
  type ManagedResource,
  planChange,
  present,
  problemsAtAttributes,
  readCurrent,
  upgradeState,
  validateConfig,
} from './resource-rules';
import { conform, WEBHOOK_DATA_SOURCE_SCHEMA, WEBHOOK_RESOURCE_SCHEMA } from './schema';
import { asNumber, type TfObject, type TfValue } from './values';

export { CLIENT_URL_WHILE_INACTIVE } from './resource-rules';

/** The client methods the resource needs; tests may hand in the real client or anything shaped like it. */
export type WebhookApi = Pick<WebhooksClient, 'create' | 'get' | 'update' | 'delete' | 'rotateSecret'>;

/** The webhook's attributes from an answer; job_ids declared null stays null when the server has none. */
function fieldsOf(webhook: WebhookSummary | WebhookDetail, declared: TfObject): TfObject {
  return {
    id: webhook.id,
    webhook_id: webhook.id,
    name: webhook.name,
    description: webhook.description,
    client_url: webhook.client_url,
    event_types: [...webhook.event_types],
    job_ids: declared.job_ids === null && webhook.job_ids.length === 0 ? null : webhook.job_ids.map(Number),
    active: webhook.active,
    // Absent from the API's answer when the webhook has no rate: null, as an unset attribute is.
    max_requests_per_second: webhook.max_requests_per_second ?? null,
    http_status_code: webhook.http_status_code,
    account_identifier: webhook.account_identifier,
  };
}

export const WEBHOOK_RESOURCE: ManagedResource<WebhookInput, WebhookSummary> = {
  noun: 'webhook',
  schema: WEBHOOK_RESOURCE_SCHEMA,
  writable: ['name', 'description', 'client_url', 'event_types', 'job_ids', 'active', 'max_requests_per_second'],
  problems: (config) =>
    problemsAtAttributes(
      webhookProblems(
        {
          ...commonProperties(config),
          jobIds: present(config.job_ids),
          maxRequestsPerSecond: present(config.max_requests_per_second),
        },
        isKnown,
      ),
    ),
  inputOf: (planned) => ({
    ...commonBody(planned),
    event_types: planned.event_types as WebhookInput['event_types'],
    job_ids: Array.isArray(planned.job_ids) ? planned.job_ids.map((id) => asNumber(id) ?? Number.NaN) : [],
    // Null (unset) sends null, so removing the attribute removes the rate.
    max_requests_per_second: asNumber(planned.max_requests_per_second ?? null),
  }),
  fieldsOf,
};

export const validateWebhookConfig = (config: TfValue): Diagnostic[] => validateConfig(WEBHOOK_RESOURCE, config);

export const planWebhook = (prior: TfObject | null, proposed: TfObject | null, config: TfObject | null) =>
  planChange(WEBHOOK_RESOURCE, prior, proposed, config);

export const upgradeWebhookState = upgradeState;

export const applyWebhook = (api: WebhookApi, prior: TfObject | null, planned: TfObject | null) =>
  applyChange(WEBHOOK_RESOURCE, api, prior, planned);

export const readWebhook = (api: WebhookApi, current: TfObject) => readCurrent(WEBHOOK_RESOURCE, api, current);

/** `terraform import dbtcloud_webhook.x wsu_...`: only the id; the refresh that follows reads the rest. */
export const importWebhook = (id: string): TfObject => importById(WEBHOOK_RESOURCE, id);

/** `data "dbtcloud_webhook"`: one webhook by webhook_id; a missing webhook is an error, not an empty result. */
export async function readWebhookDataSource(
  api: WebhookApi,
  config: TfObject,
): Promise<{ state: TfObject | null; diagnostics: Diagnostic[] }> {
  const id = String(config.webhook_id);
  try {
    const webhook = await api.get(id);
    if (webhook === null)
      return {
        state: null,
        diagnostics: [errorAt('webhook_id', 'Webhook not found', `No webhook ${id} in this account.`)],
      };
    // The data source schema has no hmac_secret nor rotation inputs, so conform leaves them out.
    return {
      state: conform(WEBHOOK_DATA_SOURCE_SCHEMA, {
        ...fieldsOf(webhook, { job_ids: [] }),
        previous_secret_expires_at: outputTime(webhook.previous_secret_expires_at),
        webhook_id: id,
      }),
      diagnostics: [],
    };
  } catch (error) {
    return { state: null, diagnostics: diagnosticsOf(error, 'Unable to read webhook') };
  }
}
