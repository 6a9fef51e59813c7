// The `Webhook` resource for Pulumi programs: same inputs and outputs as the public pulumi-dbtcloud `Webhook`,
// so a program can move between them by changing an import.
import * as pulumi from '@pulumi/pulumi';
import type { EventType } from '@jobhooks/client';
import { type CommonArgs, dynamicProps, ManagedResource, withSecretOutputs } from './managed-resource';
import { PROVIDER_MODULE, serializableProvider } from './serialized-provider';

export { PROVIDER_MODULE, serializableProvider } from './serialized-provider';
export type { WebhookConnectionArgs } from './managed-resource';

export interface WebhookArgs extends CommonArgs {
  /** A typo ('job.run.failed') fails at compile time: the names come from the contract's list. */
  eventTypes: pulumi.Input<pulumi.Input<EventType>[]>;
  /** Empty (the default) means every job. */
  jobIds?: pulumi.Input<pulumi.Input<number>[]>;
  /**
   * jobhooks' own (dbt Cloud has no such field): the most requests per second sent to `clientUrl`, counted over all
   * instances, 1 to 100; omitted: no limit. Deliveries beyond it wait their turn without using an attempt.
   */
  maxRequestsPerSecond?: pulumi.Input<number>;
  /** Take over an existing webhook by id (`pulumi import` does not work for dynamic providers). */
  adoptWebhookId?: pulumi.Input<string>;
}

export class Webhook extends ManagedResource {
  declare readonly eventTypes: pulumi.Output<EventType[]>;
  declare readonly jobIds: pulumi.Output<number[]>;
  /** The webhook's rate as the service holds it; null when it has none. */
  declare readonly maxRequestsPerSecond: pulumi.Output<number | null>;
  declare readonly webhookId: pulumi.Output<string>;
  declare readonly adoptWebhookId: pulumi.Output<string | undefined>;
  declare readonly accountIdentifier: pulumi.Output<string>;

  constructor(name: string, args: WebhookArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      serializableProvider(PROVIDER_MODULE, 'sharedWebhookProvider'),
      name,
      dynamicProps(name, args, [
        'webhookId',
        'hmacSecret',
        'previousSecretExpiresAt',
        'httpStatusCode',
        'accountIdentifier',
        'archived',
      ]),
      withSecretOutputs(opts),
      'jobhooks',
      'Webhook',
    );
  }
}
