// The rules every managed resource of this provider follows (dbtcloud_webhook, dbtcloud_operational_endpoint): the
// plan (computed values unknown at create, everything updated in place, hmac_secret kept from create, a new
// client_url for a resource that stays inactive refused), apply, refresh, import and state upgrade, with
// jobhooks' own secret rotation: a new secret_rotation value rotates hmac_secret in place. A resource states only
// what differs: its schema, its API fields and how its state is read from an answer.
import { RotateSecretBody } from '@jobhooks/client/contract';
import {
  FIELD_OF_PROPERTY,
  outputTime,
  type RotationOptions,
  rotationIdempotencyKey,
  updateWebhook,
  urlChangeWhileInactive,
} from '@jobhooks/client';
import { type Diagnostic, diagnosticsOf, errorAt, warning } from './diagnostics';
import { type BlockSchema, conform } from './schema';
import { asNumber, isWhollyKnown, sameValue, type TfObject, type TfValue, UNKNOWN } from './values';

/** What a create or update body holds that the rules read. */
export type Body = { client_url: string; active?: boolean | null };

/** What every answer of a resource's API holds that the rules read. */
export interface Answer {
  id: string;
  previous_secret_expires_at?: string | undefined;
}

/** The API calls a resource needs: the webhooks client or its operationalEndpoints, or anything shaped like them. */
export interface ResourceApi<Input, Read extends Answer> {
  create(input: Input): Promise<Read & { hmac_secret: string }>;
  get(id: string): Promise<Read | null>;
  update(id: string, input: Input): Promise<Read>;
  delete(id: string): Promise<boolean>;
  rotateSecret(
    id: string,
    overlapSeconds?: number,
    how?: RotationOptions,
  ): Promise<{ hmac_secret: string; previous_secret_expires_at: string | null }>;
}

/** One managed resource type: what differs between them, the rules below doing the rest. */
export interface ManagedResource<Input extends Body, Read extends Answer> {
  /** How messages name one ("webhook", "operational endpoint"). */
  noun: string;
  schema: BlockSchema;
  /** The attributes the API writes; a change to any of them is an in-place update (a PUT). */
  writable: readonly string[];
  /** Problems of the configuration's known values, at their attributes, in the API's words. */
  problems(config: TfObject): Diagnostic[];
  /** The body of a create or a full-replacement update, from a wholly known planned state. */
  inputOf(planned: TfObject): Input;
  /**
   * The attributes an answer gives (ids, API fields, http_status_code...), shaped like `declared` where the
   * API cannot tell null from empty.
   */
  fieldsOf(answer: Read, declared: TfObject): TfObject;
  /** Diagnostics for a failed create, when the resource has something more precise to say than the API's answer. */
  createFailure?(error: unknown): Diagnostic[] | null;
}

// Rules that call no API take any resource (its methods are compared loosely, as methods are).
type AnyResource = ManagedResource<Body, Answer>;

export const CLIENT_URL_WHILE_INACTIVE = 'Cannot change client_url while active=false';

/** The API fields changed from the prior state to the planned one: whether an update needs a PUT. */
const writableChanged = (resource: AnyResource, prior: TfObject, planned: TfObject) =>
  resource.writable.some((name) => !sameValue(planned[name] ?? null, prior[name] ?? null));

/**
 * Whether the change rotates the secret: secret_rotation set to a value other than the prior one (from unset
 * too). Removing it rotates nothing. An unknown value may rotate, so the plan says so.
 */
const rotates = (prior: TfObject, planned: TfObject) =>
  (planned.secret_rotation ?? null) !== null &&
  !sameValue(prior.secret_rotation ?? null, planned.secret_rotation ?? null);

/** The configuration's values as the shared validation names them; nulls are "not set". */
export const present = (value: TfValue | undefined): TfValue | undefined => (value === null ? undefined : value);

/** Whether a value the shared validation sees is known (Terraform's unknowns wait for apply). */
export const isKnown = (value: unknown): boolean => isWhollyKnown(value as TfValue);

/** The properties every resource has, as the shared validation (webhookProblems and the like) names them. */
export const commonProperties = (config: TfObject) => ({
  name: present(config.name),
  clientUrl: present(config.client_url),
  eventTypes: present(config.event_types),
  description: present(config.description),
  active: present(config.active),
});

/** The shared validation's problems, each at its attribute, in the API's words. */
export const problemsAtAttributes = (problems: Array<{ property: keyof typeof FIELD_OF_PROPERTY; reason: string }>) =>
  problems.map(({ property, reason }) =>
    errorAt(FIELD_OF_PROPERTY[property], `Invalid ${FIELD_OF_PROPERTY[property]}`, reason),
  );

/** The body fields every resource has (event_types typed by the caller), from a wholly known planned state. */
export const commonBody = (planned: TfObject) => ({
  name: planned.name as string,
  description: planned.description as string,
  client_url: planned.client_url as string,
  active: planned.active as boolean,
});

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
export function validateConfig(resource: AnyResource, config: TfValue): Diagnostic[] {
  const object = conform(resource.schema, config);
  if (object === null) return [];
  return [...resource.problems(object), ...overlapProblems(object.secret_overlap_seconds ?? null)];
}

/**
 * The planned state. Create: computed values unknown (no overlap yet: a new resource has one secret). Update:
 * ids, the secret and its overlap carry over, http_status_code becomes unknown when an API field changes, and
 * a rotation makes the secret and its overlap unknown. Omitted optionals take their defaults.
 */
export function planChange(
  resource: AnyResource,
  prior: TfObject | null,
  proposed: TfObject | null,
  config: TfObject | null,
): { planned: TfObject | null; diagnostics: Diagnostic[] } {
  if (proposed === null || config === null) return { planned: null, diagnostics: [] };
  const planned: TfObject = { ...proposed };
  if (config.description === null) planned.description = '';
  if (config.active === null) planned.active = true;
  // The attributes only the server sets (ids, status, secret, the overlap's end...): unknown at create, then kept.
  const carried = resource.schema.attributes
    .filter(({ computed, optional }) => computed === true && optional !== true)
    .map(({ name }) => name);
  if (prior === null) {
    for (const name of carried) planned[name] = UNKNOWN;
    planned.previous_secret_expires_at = null;
    return { planned, diagnostics: [] };
  }
  for (const name of carried) planned[name] = prior[name] ?? null;
  planned.http_status_code = writableChanged(resource, prior, planned) ? UNKNOWN : (prior.http_status_code ?? null);
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
      `The ${resource.noun} is inactive and would stay so, but the API makes it active again whenever its client_url changes. ` +
      `Set active = true together with the new client_url, or keep the old client_url while the ${resource.noun} is inactive.`;
    return { planned: null, diagnostics: [errorAt('client_url', CLIENT_URL_WHILE_INACTIVE, detail)] };
  }
  return { planned, diagnostics: [] };
}

/** What a state keeps of the configuration's rotation attributes: the server knows nothing of them. */
const rotationOf = (object: TfObject): TfObject => ({
  secret_rotation: object.secret_rotation ?? null,
  secret_overlap_seconds: object.secret_overlap_seconds ?? null,
});

/** jobhooks' own time attributes hold RFC 3339 (outputTime); an unknown or null value stays as it is. */
const timeOf = (value: TfValue): TfValue => (typeof value === 'string' ? outputTime(value) : value);

/**
 * The state after an answer: its fields, plus what the API does not show again: the secret (from create), the
 * rotation inputs as declared, and when a replaced secret stops signing (the server's from get, the state's when
 * the answer is an update's, which does not show it).
 */
function stateOf<R extends Answer>(
  resource: { fieldsOf(answer: R, declared: TfObject): TfObject },
  answer: R,
  declared: TfObject,
  kept: { hmacSecret: TfValue; previousSecretExpiresAt: TfValue },
): TfObject {
  return {
    ...resource.fieldsOf(answer, declared),
    hmac_secret: kept.hmacSecret,
    ...rotationOf(declared),
    previous_secret_expires_at: timeOf(kept.previousSecretExpiresAt),
  };
}

/**
 * A stored state, as this version keeps it: earlier versions kept previous_secret_expires_at as the API's
 * microsecond digits. Converted when Terraform upgrades the state, before any plan, so a plan that carries the
 * value over plans what apply then writes.
 */
export function upgradeState(state: TfObject | null): TfObject | null {
  if (state === null) return null;
  return { ...state, previous_secret_expires_at: timeOf(state.previous_secret_expires_at ?? null) };
}

/**
 * Creates, updates in place or deletes, and returns the new state (null once deleted). An update PUTs only
 * when an API field changed, then rotates the secret when secret_rotation changed.
 */
export async function applyChange<I extends Body, R extends Answer>(
  resource: ManagedResource<I, R>,
  api: ResourceApi<I, R>,
  prior: TfObject | null,
  planned: TfObject | null,
): Promise<{ newState: TfObject | null; diagnostics: Diagnostic[] }> {
  const { noun } = resource;
  if (planned === null) {
    if (prior === null) return { newState: null, diagnostics: [] };
    try {
      await api.delete(String(prior.id));
      return { newState: null, diagnostics: [] };
    } catch (error) {
      return { newState: prior, diagnostics: diagnosticsOf(error, `Unable to delete ${noun}`) };
    }
  }
  if (prior === null) {
    try {
      const created = await api.create(resource.inputOf(planned));
      const kept = { hmacSecret: created.hmac_secret, previousSecretExpiresAt: null };
      return { newState: stateOf(resource, created, planned, kept), diagnostics: [] };
    } catch (error) {
      const diagnostics = resource.createFailure?.(error) ?? diagnosticsOf(error, `Unable to create ${noun}`);
      return { newState: null, diagnostics };
    }
  }
  const id = String(prior.id);
  let updated: TfObject;
  try {
    updated = writableChanged(resource, prior, planned)
      ? stateOf(resource, await updateWebhook(api, id, String(prior.client_url), resource.inputOf(planned)), planned, {
          hmacSecret: prior.hmac_secret ?? null,
          previousSecretExpiresAt: prior.previous_secret_expires_at ?? null,
        })
      : { ...prior, ...rotationOf(planned) };
  } catch (error) {
    return { newState: prior, diagnostics: diagnosticsOf(error, `Unable to update ${noun}`) };
  }
  if (!rotates(prior, planned)) return { newState: updated, diagnostics: [] };
  try {
    const overlap = asNumber(planned.secret_overlap_seconds ?? null) ?? undefined;
    // Under the key of this secret_rotation value and the secret the state holds: an apply run again after one whose
    // answer was lost gets that rotation's secret instead of rotating again (which would end the overlap of the
    // secret receivers still hold).
    const rotated = await api.rotateSecret(id, overlap, {
      idempotencyKey: rotationIdempotencyKey(id, String(planned.secret_rotation), String(prior.hmac_secret ?? '')),
    });
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
      diagnostics: diagnosticsOf(error, `Unable to rotate the ${noun} secret`),
    };
  }
}

/** Refresh: the server's view (drift, archiving as active = false), or null when it was deleted out of band. */
export async function readCurrent<I extends Body, R extends Answer>(
  resource: ManagedResource<I, R>,
  api: ResourceApi<I, R>,
  current: TfObject,
): Promise<{ newState: TfObject | null; diagnostics: Diagnostic[] }> {
  const id = String(current.id);
  const name = resource.noun.charAt(0).toUpperCase() + resource.noun.slice(1);
  try {
    const answer = await api.get(id);
    if (answer === null) {
      const detail = `${name} ${id} no longer exists; it has been removed from the state.`;
      return { newState: null, diagnostics: [warning('Resource not found', detail)] };
    }
    const kept = {
      hmacSecret: current.hmac_secret ?? null,
      previousSecretExpiresAt: answer.previous_secret_expires_at ?? null,
    };
    return { newState: stateOf(resource, answer, current, kept), diagnostics: [] };
  } catch (error) {
    return { newState: current, diagnostics: diagnosticsOf(error, `Unable to read ${resource.noun}`) };
  }
}

/** `terraform import <address> <id>`: only the id; the refresh that follows reads the rest. */
export function importById(resource: AnyResource, id: string): TfObject {
  return { ...conform(resource.schema, {}), id };
}
