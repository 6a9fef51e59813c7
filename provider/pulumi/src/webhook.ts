// The `Webhook` resource for Pulumi programs: same inputs and outputs as the public pulumi-dbtcloud `Webhook`,
// so a program can move between them by changing an import.
import * as pulumi from '@pulumi/pulumi';
import type { EventType } from '@jobhooks/client';

/** A resource's own API connection; each part may come from another output (a secret config value, say). */
export interface WebhookConnectionArgs {
  /** The API base URL, ending in /api. */
  hostUrl: pulumi.Input<string>;
  accountId: pulumi.Input<number>;
  token: pulumi.Input<string>;
}

export interface WebhookArgs {
  /** Defaults to the resource's name. */
  name?: pulumi.Input<string>;
  clientUrl: pulumi.Input<string>;
  /** A typo ('job.run.failed') fails at compile time: the names come from the contract's list. */
  eventTypes: pulumi.Input<pulumi.Input<EventType>[]>;
  description?: pulumi.Input<string>;
  /** Empty (the default) means every job. */
  jobIds?: pulumi.Input<pulumi.Input<number>[]>;
  active?: pulumi.Input<boolean>;
  /**
   * jobhooks' own (dbt Cloud has no such field): the most requests per second sent to `clientUrl`, counted over all
   * instances, 1 to 100; omitted: no limit. Deliveries beyond it wait their turn without using an attempt.
   */
  maxRequestsPerSecond?: pulumi.Input<number>;
  /** Take over an existing webhook by id (`pulumi import` does not work for dynamic providers). */
  adoptWebhookId?: pulumi.Input<string>;
  /**
   * This webhook's own API and account, for a program that manages more than one; the stack config's
   * (`jobhooks:*` or `dbtcloud:*`) when omitted. Kept in the state as a secret, since it holds a token.
   */
  connection?: pulumi.Input<WebhookConnectionArgs>;
  /**
   * jobhooks' own (dbt Cloud has no rotation): change it to any new value (e.g. '2026-11') to rotate `hmacSecret`
   * in place; the old secret keeps signing beside the new one for `secretOverlapSeconds`. Set at create, or
   * removed, it rotates nothing.
   */
  secretRotation?: pulumi.Input<string>;
  /** jobhooks' own: how long a rotation's replaced secret keeps signing, 0 to 604800 s (a day when omitted). */
  secretOverlapSeconds?: pulumi.Input<number>;
}

/**
 * The module the provider host loads, by package name. The state keeps the serialized provider, so a name
 * (resolved where the program's node_modules are) keeps a stack working after the project moves or
 * reinstalls, where a file path would not.
 */
export const PROVIDER_MODULE = '@jobhooks/pulumi/provider';

/**
 * The provider as Pulumi serializes it: only a module name and a loader are captured. Capturing the client or
 * the schemas directly would make Pulumi serialize them by value, which breaks on native handles and classes.
 */
export function serializableProvider(moduleName: string = PROVIDER_MODULE): pulumi.dynamic.ResourceProvider {
  // No state of its own: Pulumi copies captured variables into each serialized function.
  const load = () =>
    (
      require(moduleName) as { sharedWebhookProvider: () => pulumi.dynamic.ResourceProvider }
    ).sharedWebhookProvider() as Required<pulumi.dynamic.ResourceProvider>;
  return {
    configure: (request) => load().configure(request),
    check: (olds, news) => load().check(olds, news),
    diff: (id, olds, news) => load().diff(id, olds, news),
    create: (inputs) => load().create(inputs),
    read: (id, props) => load().read(id, props),
    update: (id, olds, news) => load().update(id, olds, news),
    delete: (id, props) => load().delete(id, props),
  };
}

export class Webhook extends pulumi.dynamic.Resource {
  declare readonly name: pulumi.Output<string>;
  declare readonly clientUrl: pulumi.Output<string>;
  declare readonly eventTypes: pulumi.Output<EventType[]>;
  declare readonly description: pulumi.Output<string>;
  declare readonly jobIds: pulumi.Output<number[]>;
  declare readonly active: pulumi.Output<boolean>;
  /** The webhook's rate as the service holds it; null when it has none. */
  declare readonly maxRequestsPerSecond: pulumi.Output<number | null>;
  declare readonly webhookId: pulumi.Output<string>;
  /** A secret: known only when this stack created the webhook or rotated its secret (the API shows it once). */
  declare readonly hmacSecret: pulumi.Output<string>;
  declare readonly secretRotation: pulumi.Output<string | undefined>;
  declare readonly secretOverlapSeconds: pulumi.Output<number | undefined>;
  /** While a rotation's overlap lasts, when the replaced secret stops signing (RFC 3339, UTC); null otherwise. */
  declare readonly previousSecretExpiresAt: pulumi.Output<string | null>;
  declare readonly httpStatusCode: pulumi.Output<string>;
  declare readonly accountIdentifier: pulumi.Output<string>;
  declare readonly archived: pulumi.Output<boolean>;

  constructor(name: string, args: WebhookArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      serializableProvider(),
      name,
      {
        ...args,
        name: args.name ?? name,
        ...(args.connection === undefined ? {} : { connection: pulumi.secret(args.connection) }),
        webhookId: undefined,
        hmacSecret: undefined,
        previousSecretExpiresAt: undefined,
        httpStatusCode: undefined,
        accountIdentifier: undefined,
        archived: undefined,
      },
      // Server-made values are marked secret here: returning pulumi.secret() from create fails.
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), 'hmacSecret', 'connection'] },
      'jobhooks',
      'Webhook',
    );
  }
}
