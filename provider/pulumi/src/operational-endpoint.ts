// The `OperationalEndpoint` resource for Pulumi programs: an account's operational endpoint, which receives
// operational events about its webhooks (archived, failing, circuit opened, recovered, delivery exhausted).
import * as pulumi from '@pulumi/pulumi';
import type { OperationalEventType } from '@jobhooks/client';
import { type CommonArgs, dynamicProps, ManagedResource, withSecretOutputs } from './managed-resource';
import { PROVIDER_MODULE, serializableProvider } from './serialized-provider';

export interface OperationalEndpointArgs extends CommonArgs {
  /** A typo ('webhook.archive') fails at compile time: the names come from the contract's list. */
  eventTypes: pulumi.Input<pulumi.Input<OperationalEventType>[]>;
  /** Take over an existing operational endpoint by id (`pulumi import` does not work for dynamic providers). */
  adoptEndpointId?: pulumi.Input<string>;
}

/**
 * jobhooks' own: dbt Cloud has no such API, and the public pulumi-dbtcloud provider no such resource. Against a
 * host without it (dbt Cloud answers 404), the create fails with a sentence that says so.
 */
export class OperationalEndpoint extends ManagedResource {
  declare readonly eventTypes: pulumi.Output<OperationalEventType[]>;
  declare readonly endpointId: pulumi.Output<string>;
  declare readonly adoptEndpointId: pulumi.Output<string | undefined>;

  constructor(name: string, args: OperationalEndpointArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      serializableProvider(PROVIDER_MODULE, 'sharedOperationalEndpointProvider'),
      name,
      dynamicProps(name, args, ['endpointId', 'hmacSecret', 'previousSecretExpiresAt', 'httpStatusCode', 'archived']),
      withSecretOutputs(opts),
      'jobhooks',
      'OperationalEndpoint',
    );
  }
}
