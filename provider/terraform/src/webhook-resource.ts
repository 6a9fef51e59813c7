// `dbtcloud_webhook` as Terraform sees it: plan, apply, refresh, import and validation over the shared API
// client, with the public provider's behaviour (computed values unknown at plan, everything updated in place,
// hmac_secret kept from create, a new client_url for a webhook that stays inactive refused at plan time).
import type { WebhookDetail, WebhookSummary } from '@jobhooks/client/contract';
import type { WebhookInput, WebhooksClient } from '@jobhooks/client';
import { FIELD_OF_PROPERTY, webhookProblems, type WebhookProperties } from '@jobhooks/client';
import { updateWebhook, urlChangeWhileInactive } from '@jobhooks/client';
import { type Diagnostic, diagnosticsOf, errorAt, warning } from './diagnostics';
import { conform, WEBHOOK_DATA_SOURCE_SCHEMA, WEBHOOK_RESOURCE_SCHEMA } from './schema';
import { asNumber, isWhollyKnown, sameValue, type TfObject, type TfValue, UNKNOWN } from './values';

/** The client methods the resource needs; tests may hand in the real client or anything shaped like it. */
export type WebhookApi = Pick<WebhooksClient, 'create' | 'get' | 'update' | 'delete'>;

/** The attributes a user writes; a change to any of them is an in-place update. */
const WRITABLE = ['name', 'description', 'client_url', 'event_types', 'job_ids', 'active'] as const;

export const CLIENT_URL_WHILE_INACTIVE = 'Cannot change client_url while active=false';

/** The configuration as the shared validation names it; nulls are "not set". */
function propertiesOf(config: TfObject): WebhookProperties {
  const present = (value: TfValue) => (value === null ? undefined : value);
  return {
    name: present(config.name ?? null),
    clientUrl: present(config.client_url ?? null),
    eventTypes: present(config.event_types ?? null),
    description: present(config.description ?? null),
    jobIds: present(config.job_ids ?? null),
    active: present(config.active ?? null),
  };
}

/** Every problem of the known values, at its attribute, in the API's words. Unknowns wait for apply. */
export function validateWebhookConfig(config: TfValue): Diagnostic[] {
  const object = conform(WEBHOOK_RESOURCE_SCHEMA, config);
  if (object === null) return [];
  return webhookProblems(propertiesOf(object), (value) => isWhollyKnown(value as TfValue)).map(({ property, reason }) =>
    errorAt(FIELD_OF_PROPERTY[property], `Invalid ${FIELD_OF_PROPERTY[property]}`, reason),
  );
}

/**
 * The planned state. Create: computed values unknown. Update: ids and the secret carry over,
 * http_status_code becomes unknown when anything changes. Omitted optionals take their defaults.
 */
export function planWebhook(
  prior: TfObject | null,
  proposed: TfObject | null,
  config: TfObject | null,
): { planned: TfObject | null; diagnostics: Diagnostic[] } {
  if (proposed === null || config === null) return { planned: null, diagnostics: [] };
  const planned: TfObject = { ...proposed };
  if (config.description === null) planned.description = '';
  if (config.active === null) planned.active = true;
  if (prior === null) {
    for (const name of ['id', 'webhook_id', 'http_status_code', 'hmac_secret', 'account_identifier'])
      planned[name] = UNKNOWN;
    return { planned, diagnostics: [] };
  }
  for (const name of ['id', 'webhook_id', 'hmac_secret', 'account_identifier']) planned[name] = prior[name] ?? null;
  const changed = WRITABLE.some((name) => !sameValue(planned[name] ?? null, prior[name] ?? null));
  planned.http_status_code = changed ? UNKNOWN : (prior.http_status_code ?? null);
  if (
    urlChangeWhileInactive(
      { clientUrl: prior.client_url, active: prior.active },
      { clientUrl: planned.client_url, active: planned.active },
    )
  ) {
    const detail =
      'The webhook is inactive and would stay so, but the API makes a webhook active again whenever its client_url changes. ' +
      'Set active = true together with the new client_url, or keep the old client_url while the webhook is inactive.';
    return { planned: null, diagnostics: [errorAt('client_url', CLIENT_URL_WHILE_INACTIVE, detail)] };
  }
  return { planned, diagnostics: [] };
}

/** The body of a create or a full-replacement update, from a wholly known planned state. */
function inputOf(planned: TfObject): WebhookInput {
  const jobIds = Array.isArray(planned.job_ids) ? planned.job_ids.map((id) => asNumber(id) ?? Number.NaN) : [];
  return {
    name: planned.name as string,
    description: planned.description as string,
    client_url: planned.client_url as string,
    event_types: planned.event_types as WebhookInput['event_types'],
    job_ids: jobIds,
    active: planned.active as boolean,
  };
}

interface Carried {
  hmacSecret: TfValue;
  /** The state had job_ids null: an empty list from the server stays null, so no diff appears. */
  jobIdsNull: boolean;
}

function stateOf(webhook: WebhookSummary | WebhookDetail, carried: Carried): TfObject {
  return {
    id: webhook.id,
    webhook_id: webhook.id,
    name: webhook.name,
    description: webhook.description,
    client_url: webhook.client_url,
    event_types: [...webhook.event_types],
    job_ids: carried.jobIdsNull && webhook.job_ids.length === 0 ? null : webhook.job_ids.map(Number),
    active: webhook.active,
    http_status_code: webhook.http_status_code,
    hmac_secret: carried.hmacSecret,
    account_identifier: webhook.account_identifier,
  };
}

/** Creates, updates in place or deletes, and returns the new state (null once deleted). */
export async function applyWebhook(
  api: WebhookApi,
  prior: TfObject | null,
  planned: TfObject | null,
): Promise<{ newState: TfObject | null; diagnostics: Diagnostic[] }> {
  if (planned === null) {
    if (prior === null) return { newState: null, diagnostics: [] };
    try {
      await api.delete(String(prior.id));
      return { newState: null, diagnostics: [] };
    } catch (error) {
      return { newState: prior, diagnostics: diagnosticsOf(error, 'Unable to delete webhook') };
    }
  }
  const jobIdsNull = planned.job_ids === null;
  if (prior === null) {
    try {
      const created = await api.create(inputOf(planned));
      return { newState: stateOf(created, { hmacSecret: created.hmac_secret, jobIdsNull }), diagnostics: [] };
    } catch (error) {
      return { newState: null, diagnostics: diagnosticsOf(error, 'Unable to create webhook') };
    }
  }
  try {
    const updated = await updateWebhook(api, String(prior.id), String(prior.client_url), inputOf(planned));
    return { newState: stateOf(updated, { hmacSecret: prior.hmac_secret ?? null, jobIdsNull }), diagnostics: [] };
  } catch (error) {
    return { newState: prior, diagnostics: diagnosticsOf(error, 'Unable to update webhook') };
  }
}

/** Refresh: the server's view (drift, archiving as active = false), or null when it was deleted out of band. */
export async function readWebhook(
  api: WebhookApi,
  current: TfObject,
): Promise<{ newState: TfObject | null; diagnostics: Diagnostic[] }> {
  try {
    const webhook = await api.get(String(current.id));
    if (webhook === null) {
      return {
        newState: null,
        diagnostics: [
          warning(
            'Resource not found',
            `Webhook ${String(current.id)} no longer exists; it has been removed from the state.`,
          ),
        ],
      };
    }
    return {
      newState: stateOf(webhook, { hmacSecret: current.hmac_secret ?? null, jobIdsNull: current.job_ids === null }),
      diagnostics: [],
    };
  } catch (error) {
    return { newState: current, diagnostics: diagnosticsOf(error, 'Unable to read webhook') };
  }
}

/** `terraform import dbtcloud_webhook.x wsu_...`: only the id; the refresh that follows reads the rest. */
export function importWebhook(id: string): TfObject {
  return { ...conform(WEBHOOK_RESOURCE_SCHEMA, {}), id };
}

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
    // The data source schema has no hmac_secret, so conform leaves it out.
    return {
      state: conform(WEBHOOK_DATA_SOURCE_SCHEMA, {
        ...stateOf(webhook, { hmacSecret: null, jobIdsNull: false }),
        webhook_id: id,
      }),
      diagnostics: [],
    };
  } catch (error) {
    return { state: null, diagnostics: diagnosticsOf(error, 'Unable to read webhook') };
  }
}
