// The `Webhook` resource for Pulumi programs: same inputs and outputs as the public pulumi-dbtcloud `Webhook`,
// so a program can move between them by changing an import (design section 5).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as pulumi from '@pulumi/pulumi';

export interface WebhookArgs {
  /** Defaults to the resource's name. */
  name?: pulumi.Input<string>;
  clientUrl: pulumi.Input<string>;
  eventTypes: pulumi.Input<pulumi.Input<string>[]>;
  description?: pulumi.Input<string>;
  /** Empty (the default) means every job. */
  jobIds?: pulumi.Input<pulumi.Input<number>[]>;
  active?: pulumi.Input<boolean>;
  /** Take over an existing webhook by id (`pulumi import` does not work for dynamic providers). */
  adoptWebhookId?: pulumi.Input<string>;
}

/**
 * Where the compiled provider lives. The provider host runs outside this program, so the provider is
 * serialized as a small shell that loads this file there; everything it needs is then required normally.
 */
export function providerModulePath(): string {
  const compiled = __filename.endsWith('.js')
    ? join(__dirname, 'webhook-provider.js')
    : join(__dirname, '..', '..', 'dist', 'provider', 'pulumi', 'webhook-provider.js');
  if (!existsSync(compiled)) throw new Error(`The jobhooks Pulumi provider is not built (${compiled} is missing): run "npm run build".`);
  return compiled;
}

/**
 * The provider as Pulumi serializes it: only a path and a loader are captured. Capturing the client or the
 * schemas directly would make Pulumi serialize them by value, which breaks on native handles and classes.
 */
export function serializableProvider(modulePath: string): pulumi.dynamic.ResourceProvider {
  // No state of its own: Pulumi copies captured variables into each serialized function.
  const load = () =>
    (require(modulePath) as { sharedWebhookProvider: () => pulumi.dynamic.ResourceProvider }).sharedWebhookProvider() as Required<pulumi.dynamic.ResourceProvider>;
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
  declare readonly eventTypes: pulumi.Output<string[]>;
  declare readonly description: pulumi.Output<string>;
  declare readonly jobIds: pulumi.Output<number[]>;
  declare readonly active: pulumi.Output<boolean>;
  declare readonly webhookId: pulumi.Output<string>;
  /** A secret: known only when this stack created the webhook (the API shows it once). */
  declare readonly hmacSecret: pulumi.Output<string>;
  declare readonly httpStatusCode: pulumi.Output<string>;
  declare readonly accountIdentifier: pulumi.Output<string>;
  declare readonly archived: pulumi.Output<boolean>;

  constructor(name: string, args: WebhookArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      serializableProvider(providerModulePath()),
      name,
      {
        ...args,
        name: args.name ?? name,
        webhookId: undefined,
        hmacSecret: undefined,
        httpStatusCode: undefined,
        accountIdentifier: undefined,
        archived: undefined,
      },
      // The secret comes from the server, so it is marked secret here: returning pulumi.secret() from create fails.
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), 'hmacSecret'] },
      'jobhooks',
      'Webhook',
    );
  }
}
