// `resource "dbtcloud_operational_endpoint"` for CDKTF apps: jobhooks' own resource (dbt Cloud has no operational
// endpoints API, and the public provider no such resource), a URL that receives signed operational events about the
// account's webhooks; checked at synth time with the operational endpoints API's own body schema.
import type { Construct } from 'constructs';
import { type OperationalEventType, operationalEndpointProblems } from '@jobhooks/client';
import { type EndpointConfig, EndpointResource, isKnownAtSynth, problemLines } from './endpoint-resource';
import { hclAttributes } from './hcl';

/**
 * `eventTypes` takes operational event names only ('webhook.archived', 'delivery.exhausted', ...): a job-run event
 * type fails at compile time. A list from a Terraform variable: `variable.listValue as OperationalEventType[]`.
 */
export type DbtcloudOperationalEndpointConfig = EndpointConfig<OperationalEventType>;

/** The problems of the values known at synth time, by property, in the operational endpoints API's own words. */
export function operationalEndpointConfigProblems(config: DbtcloudOperationalEndpointConfig): string[] {
  return problemLines(operationalEndpointProblems(config, isKnownAtSynth));
}

/** Deploys only with jobhooks' provider (`@jobhooks/terraform-provider`): the public provider has no such resource. */
export class DbtcloudOperationalEndpoint extends EndpointResource<OperationalEventType> {
  static readonly tfResourceType = 'dbtcloud_operational_endpoint';

  constructor(scope: Construct, id: string, config: DbtcloudOperationalEndpointConfig) {
    super(scope, id, DbtcloudOperationalEndpoint.tfResourceType, config, operationalEndpointConfigProblems(config));
  }

  /** The operational endpoint id. */
  get endpointId(): string {
    return this.getStringAttribute('id');
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    return this.endpointAttributes();
  }

  protected override synthesizeHclAttributes(): Record<string, unknown> {
    return hclAttributes(this.endpointHclAttributes());
  }
}
