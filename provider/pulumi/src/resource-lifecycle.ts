// The lifecycle every resource of this package goes through (check, diff, create, read, update, delete) over the
// typed client; a resource kind (a webhook, an operational endpoint) names its fields, its schema and its API.
import type * as pulumi from '@pulumi/pulumi';
import { type RotationOptions, updateWebhook, urlChangeWhileInactive, type WebhooksClient } from '@jobhooks/client';
import type { RotatedSecret } from '@jobhooks/client/contract';
import { connectionProblem, createClients, type ResourceConnection } from './connection';
import {
  carriedSecret,
  isSet,
  overlapProblems,
  rotatedSecret,
  rotates,
  same,
  type RotationInputs,
  type Secret,
} from './secret-rotation';

/** The inputs the lifecycle itself reads; a kind adds its own fields. */
export interface ManagedInputs extends RotationInputs {
  name: string;
  clientUrl: string;
  eventTypes: string[];
  description?: string;
  active?: boolean;
  /** This resource's own API connection (kept as a secret); the stack config's when omitted. */
  connection?: ResourceConnection;
}

/** The inputs that are jobhooks' own and the server knows nothing of: outputs keep them as given. */
export type OwnInputs<AdoptInput extends string> =
  AdoptInput | 'connection' | 'secretRotation' | 'secretOverlapSeconds';

/** A kind's outputs: every API field as the server holds it, the own inputs as given, and the secret. */
export type OutputsOf<Inputs extends ManagedInputs, AdoptInput extends keyof Inputs & string> = Required<
  Omit<Inputs, OwnInputs<AdoptInput>>
> &
  Pick<Inputs, OwnInputs<AdoptInput>> &
  Secret;

/** The outputs the lifecycle itself reads. */
export interface ManagedOutputs extends Secret, RotationInputs {
  clientUrl: string;
  active: boolean;
  connection?: ResourceConnection;
}

/** The API of one kind, as the typed client offers it. */
export interface ManagedApi<Body, Answer> {
  get(id: string): Promise<Answer | null>;
  create(body: Body): Promise<Answer & { hmac_secret: string }>;
  update(id: string, body: Body): Promise<Answer>;
  delete(id: string): Promise<boolean>;
  rotateSecret(id: string, overlapSeconds?: number, how?: RotationOptions): Promise<RotatedSecret>;
}

/** What the lifecycle reads of a request body and of the API's answer. */
type BodyShape = { client_url: string; active?: boolean | null };
type AnswerShape = { id: string; previous_secret_expires_at?: string | null | undefined };

export interface ResourceKind<
  Inputs extends ManagedInputs,
  Outputs extends ManagedOutputs,
  Body extends BodyShape,
  Answer extends AnswerShape,
> {
  /** How messages name one: 'webhook'. */
  noun: string;
  /** The input that takes over an existing one by id (`pulumi import` does not work for dynamic providers). */
  adoptInput: keyof Inputs & string;
  /** The inputs the API holds: a change of any of them is a PUT. */
  updatable: ReadonlyArray<keyof Inputs & keyof Outputs & string>;
  /** What the API makes of an omitted optional input, so that omitting it and giving its default are no change. */
  defaults: Partial<Inputs>;
  /** The outputs that are no input: read leaves them out of the inputs it reports. */
  computed: ReadonlyArray<keyof Outputs>;
  /** Every failure of the known values, by property, in the API schema's words. */
  problems(news: Inputs, known: (value: unknown) => boolean): pulumi.dynamic.CheckFailure[];
  body(inputs: Inputs): Body;
  /** The outputs an answer makes, but for the inputs that are jobhooks' own (the lifecycle adds those). */
  outputs(answer: Answer, secret: Secret): Outputs;
  api(client: WebhooksClient): ManagedApi<Body, Answer>;
  /** A clearer error for a create the API refused, where the kind knows one. */
  createFailure?(error: unknown): Error | undefined;
}

/** The value Pulumi's host puts where an input is not known yet (a preview). */
const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';
const known = (value: unknown) => !JSON.stringify(value ?? null).includes(UNKNOWN);

/**
 * Which store a connection points at (another one holds other resources, so moving means replacing): the API's URL
 * as a URL parser writes it (the host's letter case and a trailing slash make no other place) and the account.
 */
function place(connection: { hostUrl: string; accountId: number | string } | null): string | null {
  if (connection === null) return null;
  const url = URL.canParse(connection.hostUrl) ? new URL(connection.hostUrl) : null;
  const api = url === null ? connection.hostUrl : `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  return `${api}#${Number(connection.accountId)}`;
}

export function createResourceProvider<
  Inputs extends ManagedInputs,
  Outputs extends ManagedOutputs,
  Body extends BodyShape,
  Answer extends AnswerShape,
>(kind: ResourceKind<Inputs, Outputs, Body, Answer>, env: NodeJS.ProcessEnv): pulumi.dynamic.ResourceProvider {
  const clients = createClients(env);
  const api = (own: ResourceConnection | undefined) => kind.api(clients.of(own));
  /** Where a resource lives: its own connection, else the stack's (so giving the stack's own values moves nothing). */
  const placeOf = (connection: ResourceConnection | undefined) => place(connection ?? clients.stack());
  /**
   * Ids that a create in this run adopted. When a replacement adopts the very id the resource it replaces managed
   * (create before delete), the engine then deletes that id: the webhook the new resource has just taken over.
   */
  const adoptedNow = new Set<string>();
  /** The inputs that are jobhooks' own and the server knows nothing of: outputs keep them as given. */
  const own: readonly string[] = [kind.adoptInput, 'connection', 'secretRotation', 'secretOverlapSeconds'];
  /**
   * Only the own inputs that are set: Pulumi's structs take no undefined. An empty adoption id or connection is
   * none; a rotation value or an overlap of 0 is a value.
   */
  const ownInputs = (origin: object): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(origin).filter(
        ([key, value]) =>
          own.includes(key) &&
          (key === 'secretRotation' || key === 'secretOverlapSeconds' ? isSet(value) : Boolean(value)),
      ),
    );
  const outputsOf = (answer: Answer, secret: Secret, origin: object): Outputs => ({
    ...kind.outputs(answer, carriedSecret(secret)),
    ...ownInputs(origin),
  });
  const defaulted = (inputs: Partial<Inputs> | Partial<Outputs>, key: keyof Inputs & keyof Outputs) =>
    (inputs as Partial<Inputs>)[key] ?? kind.defaults[key];
  const apiChanged = (olds: Partial<Outputs>, news: Inputs) =>
    kind.updatable.some((key) => !same(defaulted(olds, key), defaulted(news, key)));
  const adoptId = (inputs: Partial<Inputs> | Partial<Outputs>) =>
    (inputs as Record<string, unknown>)[kind.adoptInput] as string | undefined;

  return {
    async configure(request) {
      clients.configure(request.config);
    },

    /** Every failure by property, with the service's own messages; known values only during a preview. */
    async check(olds: Partial<Outputs>, news: Inputs) {
      const badConnection = known(news.connection) ? connectionProblem(news.connection) : null;
      const failures: pulumi.dynamic.CheckFailure[] = [
        ...kind.problems(news, known),
        ...(badConnection === null ? [] : [{ property: 'connection', reason: badConnection }]),
        ...(known(news.secretOverlapSeconds) ? overlapProblems(news.secretOverlapSeconds) : []),
      ];
      if (olds.clientUrl !== undefined && known(news.clientUrl) && urlChangeWhileInactive(olds, news)) {
        failures.push({
          property: 'clientUrl',
          reason: `Cannot change clientUrl while active is false: the service reactivates any ${kind.noun} whose URL changes. Set active: true in the same change.`,
        });
      }
      return { inputs: news, failures };
    },

    /**
     * Everything is updated in place, a new token and a secret rotation included; adopting a different one, or
     * another API or account, replaces the resource.
     */
    async diff(id, olds: Outputs, news: Inputs) {
      const changed: string[] = kind.updatable.filter((key) => !same(defaulted(olds, key), defaulted(news, key)));
      for (const key of ['connection', 'secretRotation', 'secretOverlapSeconds'] as const)
        if (!same(olds[key] ?? null, news[key] ?? null)) changed.push(key);
      const replaces: string[] = [];
      // Adopting the webhook the resource already manages is no other webhook.
      const adopting = adoptId(news);
      if (adopting !== undefined && adopting !== id && (adoptId(olds) ?? null) !== adopting)
        replaces.push(kind.adoptInput);
      // A connection not known yet (a preview) is a change whose place is told at the update.
      if (known(news.connection) && placeOf(olds.connection) !== placeOf(news.connection)) replaces.push('connection');
      return { changes: changed.length + replaces.length > 0, replaces, deleteBeforeReplace: false };
    },

    async create(inputs: Inputs) {
      const client = api(inputs.connection);
      const adopt = adoptId(inputs);
      if (adopt) {
        const existing = await client.get(adopt);
        if (!existing) {
          throw new Error(`Cannot adopt ${kind.noun} ${adopt}: it does not exist in this account.`);
        }
        const updated = await client.update(existing.id, kind.body(inputs));
        adoptedNow.add(existing.id);
        const secret = { hmacSecret: '', previousSecretExpiresAt: existing.previous_secret_expires_at ?? null };
        return { id: updated.id, outs: outputsOf(updated, secret, inputs) };
      }
      // A secretRotation given at create rotates nothing: the secret is new.
      const created = await client.create(kind.body(inputs)).catch((error: unknown) => {
        throw kind.createFailure?.(error) ?? error;
      });
      return {
        id: created.id,
        outs: outputsOf(created, { hmacSecret: created.hmac_secret, previousSecretExpiresAt: null }, inputs),
      };
    },

    /** Refresh: drift and archiving show as changed outputs; one deleted elsewhere reads as gone (empty id). */
    async read(id, props?: Partial<Outputs>) {
      const answer = await api(props?.connection).get(id);
      if (!answer) return { id: '' };
      const secret = { ...carriedSecret(props), previousSecretExpiresAt: answer.previous_secret_expires_at ?? null };
      const outs = outputsOf(answer, secret, props ?? {});
      const inputs = Object.fromEntries(
        Object.entries(outs).filter(([key]) => !(kind.computed as readonly string[]).includes(key)),
      );
      return { id, props: outs, inputs };
    },

    /**
     * A PUT when a field of the API or the connection changed, then a rotation when secretRotation changed.
     * A change of secretOverlapSeconds alone (or the removal of secretRotation) only records the new input.
     */
    async update(id, olds: Outputs, news: Inputs) {
      const client = api(news.connection);
      const secret = carriedSecret(olds);
      let outs: Outputs;
      if (apiChanged(olds, news) || !same(olds.connection ?? null, news.connection ?? null)) {
        outs = outputsOf(await updateWebhook(client, id, olds.clientUrl, kind.body(news)), secret, news);
      } else {
        const kept = Object.fromEntries(Object.entries(olds).filter(([key]) => !own.includes(key)));
        outs = { ...kept, ...ownInputs(news), ...secret } as Outputs;
      }
      if (rotates(olds, news)) outs = { ...outs, ...(await rotatedSecret(client, id, news, secret)) };
      return { outs };
    },

    async delete(id, props: Partial<Outputs>) {
      // Taken over in this run by the resource that replaces this one: it is that resource's now.
      if (adoptedNow.has(id)) return;
      await api(props?.connection).delete(id);
    },
  };
}
