// What every resource class of this package shares: the connection and secret rotation inputs, the outputs of a
// signed endpoint, and what it hands to pulumi.dynamic.Resource (the name defaulted, the connection and the
// server-made secret kept secret).
import * as pulumi from '@pulumi/pulumi';

/** A resource's own API connection; each part may come from another output (a secret config value, say). */
export interface WebhookConnectionArgs {
  /** The API base URL, ending in /api. */
  hostUrl: pulumi.Input<string>;
  accountId: pulumi.Input<number>;
  token: pulumi.Input<string>;
}

/** The inputs every resource class has besides its event types and its own fields. */
export interface CommonArgs {
  /** Defaults to the resource's name. */
  name?: pulumi.Input<string>;
  clientUrl: pulumi.Input<string>;
  description?: pulumi.Input<string>;
  active?: pulumi.Input<boolean>;
  /**
   * This resource's own API and account, for a program that manages more than one; the stack config's
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

/** The outputs of every resource of this package, which the service signs its deliveries to. */
export abstract class ManagedResource extends pulumi.dynamic.Resource {
  declare readonly name: pulumi.Output<string>;
  declare readonly clientUrl: pulumi.Output<string>;
  declare readonly description: pulumi.Output<string>;
  declare readonly active: pulumi.Output<boolean>;
  /** A secret: known only when this stack created the resource or rotated its secret (the API shows it once). */
  declare readonly hmacSecret: pulumi.Output<string>;
  /** This resource's own API connection as given (a secret, with its token); undefined for the stack's. */
  declare readonly connection: pulumi.Output<{ hostUrl: string; accountId: number; token: string } | undefined>;
  declare readonly secretRotation: pulumi.Output<string | undefined>;
  declare readonly secretOverlapSeconds: pulumi.Output<number | undefined>;
  /** While a rotation's overlap lasts, when the replaced secret stops signing (RFC 3339, UTC); null otherwise. */
  declare readonly previousSecretExpiresAt: pulumi.Output<string | null>;
  /** The status code of the last delivery's answer ('0' before the first). */
  declare readonly httpStatusCode: pulumi.Output<string>;
  declare readonly archived: pulumi.Output<boolean>;
}

/** The properties of a resource: its args, its name, and each server-made output as not known yet. */
export function dynamicProps(name: string, args: CommonArgs, computed: readonly string[]): pulumi.Inputs {
  return {
    ...args,
    name: args.name ?? name,
    ...(args.connection === undefined ? {} : { connection: pulumi.secret(args.connection) }),
    ...Object.fromEntries(computed.map((output) => [output, undefined])),
  };
}

/** Server-made values are marked secret here: returning pulumi.secret() from create fails. */
export const withSecretOutputs = (opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions => ({
  ...opts,
  additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), 'hmacSecret', 'connection'],
});
