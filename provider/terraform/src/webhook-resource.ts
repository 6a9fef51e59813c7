// `dbtcloud_webhook` as Terraform sees it: plan, apply, refresh, import and validation over the shared API
// client, with the public provider's behaviour (computed values unknown at plan, everything updated in place,
// hmac_secret kept from create, a new client_url for a webhook that stays inactive refused at plan time), and
// jobhooks' own delivery rate (max_requests_per_second, a writable field like the others) and secret rotation: a new
// secret_rotation value rotates hmac_secret in place.
import { RotateSecretBody, type WebhookDetail, type WebhookSummary } from '@jobhooks/client/contract';
import type { WebhookInput, WebhooksClient } from '@jobhooks/client';
import { FIELD_OF_PROPERTY, webhookProblems, type WebhookProperties } from '@jobhooks/client';
import { outputTime, updateWebhook, urlChangeWhileInactive } from '@jobhooks/client';
import { type Diagnostic, diagnosticsOf, errorAt, warning } from './diagnostics';
import { conform, WEBHOOK_DATA_SOURCE_SCHEMA, WEBHOOK_RESOURCE_SCHEMA } from './schema';
import { asNumber, isWhollyKnown, sameValue, type TfObject, type TfValue, UNKNOWN } from './values';

/** The client methods the resource needs; tests may hand in the real client or anything shaped like it. */
export type WebhookApi = Pick<WebhooksClient, 'create' | 'get' | 'update' | 'delete' | 'rotateSecret'>;

/** The attributes the API writes; a change to any of them is an in-place update (a PUT). */
const WRITABLE = [
  'name',
  'description',
  'client_url',
  'event_types',
  'job_ids',
  'active',
  'max_requests_per_second',
] as const;

/** The API fields changed from the prior state to the planned one: whether an update needs a PUT. */
const writableChanged = (prior: TfObject, planned: TfObject) =>
  WRITABLE.some((name) => !sameValue(planned[name] ?? null, prior[name] ?? null));

/**
 * Whether the change rotates the secret: secret_rotation set to a value other than the prior one (from unset
 * too). Removing it rotates nothing. An unknown value may rotate, so the plan says so.
 */
const rotates = (prior: TfObject, planned: TfObject) =>
  (planned.secret_rotation ?? null) !== null &&
  !sameValue(prior.secret_rotation ?? null, planned.secret_rotation ?? null);

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
    maxRequestsPerSecond: present(config.max_requests_per_second ?? null),
  };
}

/** secret_overlap_seconds by the rotation endpoint's own body schema, in its words; unset or unknown: nothing. */
function overlapProblems(overlap: TfValue): Diagnostic[] {
  if (overlap === null || !isWhollyKnown(overlap)) return [];
  const parsed = RotateSecretBody.safeParse({ overlap_seconds: asNumber(overlap) ?? overlap });
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) =>
    errorAt('secret_overlap_seconds', 'Invalid secret_overlap_seconds', issue.message),
  );
}

/** Every problem of the known values, at its attribute, in the API's words. Unknowns wait for apply. */
export function validateWebhookConfig(config: TfValue): Diagnostic[] {
  const object = conform(WEBHOOK_RESOURCE_SCHEMA, config);
  if (object === null) return [];
  return [
    ...webhookProblems(propertiesOf(object), (value) => isWhollyKnown(value as TfValue)).map(({ property, reason }) =>
      errorAt(FIELD_OF_PROPERTY[property], `Invalid ${FIELD_OF_PROPERTY[property]}`, reason),
    ),
    ...overlapProblems(object.secret_overlap_seconds ?? null),
  ];
}

/**
 * The planned state. Create: computed values unknown (no overlap yet: a new webhook has one secret). Update:
 * ids, the secret and its overlap carry over, http_status_code becomes unknown when an API field changes, and
 * a rotation makes the secret and its overlap unknown. Omitted optionals take their defaults.
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
    planned.previous_secret_expires_at = null;
    return { planned, diagnostics: [] };
  }
  for (const name of ['id', 'webhook_id', 'hmac_secret', 'account_identifier', 'previous_secret_expires_at'])
    planned[name] = prior[name] ?? null;
  planned.http_status_code = writableChanged(prior, planned) ? UNKNOWN : (prior.http_status_code ?? null);
  if (rotates(prior, planned)) {
    planned.hmac_secret = UNKNOWN;
    planned.previous_secret_expires_at = UNKNOWN;
  }
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
    // Null (unset) sends null, so removing the attribute removes the rate.
    max_requests_per_second: asNumber(planned.max_requests_per_second ?? null),
  };
}

interface Carried {
  hmacSecret: TfValue;
  /** The server's (get and list show it) or the state's (an update's answer does not). */
  previousSecretExpiresAt: TfValue;
  /** secret_rotation and secret_overlap_seconds as configured: the server knows nothing of them. */
  rotation: TfObject;
  /** The state had job_ids null: an empty list from the server stays null, so no diff appears. */
  jobIdsNull: boolean;
}

/** What a state keeps of the configuration's rotation attributes. */
const rotationOf = (object: TfObject): TfObject => ({
  secret_rotation: object.secret_rotation ?? null,
  secret_overlap_seconds: object.secret_overlap_seconds ?? null,
});

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
    // Absent from the API's answer when the webhook has no rate: null, as an unset attribute is.
    max_requests_per_second: webhook.max_requests_per_second ?? null,
    http_status_code: webhook.http_status_code,
    hmac_secret: carried.hmacSecret,
    account_identifier: webhook.account_identifier,
    ...carried.rotation,
    previous_secret_expires_at: timeOf(carried.previousSecretExpiresAt),
  };
}

/** jobhooks' own time attributes hold RFC 3339 (outputTime); an unknown or null value stays as it is. */
const timeOf = (value: TfValue): TfValue => (typeof value === 'string' ? outputTime(value) : value);

/**
 * A stored state, as this version keeps it: earlier versions kept previous_secret_expires_at as the API's
 * microsecond digits. Converted when Terraform upgrades the state, before any plan, so a plan that carries the
 * value over plans what apply then writes.
 */
export function upgradeWebhookState(state: TfObject | null): TfObject | null {
  if (state === null) return null;
  return { ...state, previous_secret_expires_at: timeOf(state.previous_secret_expires_at ?? null) };
}

/**
 * Creates, updates in place or deletes, and returns the new state (null once deleted). An update PUTs only
 * when an API field changed, then rotates the secret when secret_rotation changed.
 */
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
      const carried = { previousSecretExpiresAt: null, rotation: rotationOf(planned), jobIdsNull };
      return { newState: stateOf(created, { ...carried, hmacSecret: created.hmac_secret }), diagnostics: [] };
    } catch (error) {
      return { newState: null, diagnostics: diagnosticsOf(error, 'Unable to create webhook') };
    }
  }
  const id = String(prior.id);
  let updated: TfObject;
  try {
    updated = writableChanged(prior, planned)
      ? stateOf(await updateWebhook(api, id, String(prior.client_url), inputOf(planned)), {
          hmacSecret: prior.hmac_secret ?? null,
          previousSecretExpiresAt: prior.previous_secret_expires_at ?? null,
          rotation: rotationOf(planned),
          jobIdsNull,
        })
      : { ...prior, ...rotationOf(planned) };
  } catch (error) {
    return { newState: prior, diagnostics: diagnosticsOf(error, 'Unable to update webhook') };
  }
  if (!rotates(prior, planned)) return { newState: updated, diagnostics: [] };
  try {
    const overlap = asNumber(planned.secret_overlap_seconds ?? null);
    const rotated = await api.rotateSecret(id, overlap ?? undefined);
    return {
      newState: {
        ...updated,
        hmac_secret: rotated.hmac_secret,
        previous_secret_expires_at: outputTime(rotated.previous_secret_expires_at),
      },
      diagnostics: [],
    };
  } catch (error) {
    // The update stands; the state keeps the old secret and the old secret_rotation, so the next apply rotates.
    return {
      newState: { ...updated, secret_rotation: prior.secret_rotation ?? null },
      diagnostics: diagnosticsOf(error, 'Unable to rotate the webhook secret'),
    };
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
      newState: stateOf(webhook, {
        hmacSecret: current.hmac_secret ?? null,
        previousSecretExpiresAt: webhook.previous_secret_expires_at ?? null,
        rotation: rotationOf(current),
        jobIdsNull: current.job_ids === null,
      }),
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
    // The data source schema has no hmac_secret nor rotation inputs, so conform leaves them out.
    return {
      state: conform(WEBHOOK_DATA_SOURCE_SCHEMA, {
        ...stateOf(webhook, {
          hmacSecret: null,
          previousSecretExpiresAt: webhook.previous_secret_expires_at ?? null,
          rotation: {},
          jobIdsNull: false,
        }),
        webhook_id: id,
      }),
      diagnostics: [],
    };
  } catch (error) {
    return { state: null, diagnostics: diagnosticsOf(error, 'Unable to read webhook') };
  }
}
