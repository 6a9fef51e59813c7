// What the package's resource constructs share (a webhook and an operational endpoint are both a URL that receives
// signed events): checked at construction, meta-arguments passed on, and the attributes both have.
import {
  booleanToHclTerraform,
  booleanToTerraform,
  type IResolvable,
  listMapper,
  listMapperHcl,
  stringToHclTerraform,
  stringToTerraform,
  type TerraformMetaArguments,
  TerraformResource,
  Token,
} from 'cdktf';
import type { Construct } from 'constructs';
import type { HclAttribute } from './hcl';

/** The properties every endpoint resource has, with the event type names it takes. */
export interface EndpointConfig<EventName extends string> extends TerraformMetaArguments {
  name: string;
  clientUrl: string;
  eventTypes: EventName[];
  description?: string;
  active?: boolean | IResolvable;
}

/** Whether a value is known at synth time; tokens (variables, references) are checked by Terraform at plan time. */
export const isKnownAtSynth = (value: unknown): boolean => !Token.isUnresolved(value);

/** Problems reported as `property: reason`, the form a construction error lists them in. */
export const problemLines = (problems: Array<{ property: string; reason: string }>): string[] =>
  problems.map(({ property, reason }) => `${property}: ${reason}`);

export abstract class EndpointResource<EventName extends string> extends TerraformResource {
  protected readonly config: EndpointConfig<EventName>;

  /** Refuses a configuration with problems known at synth time, naming the resource type and id. */
  protected constructor(
    scope: Construct,
    id: string,
    terraformResourceType: string,
    config: EndpointConfig<EventName>,
    problems: string[],
  ) {
    if (problems.length > 0) throw new Error(`Invalid ${terraformResourceType} "${id}":\n  ${problems.join('\n  ')}`);
    super(scope, id, {
      terraformResourceType,
      terraformGeneratorMetadata: { providerName: 'dbtcloud' },
      provider: config.provider,
      dependsOn: config.dependsOn,
      count: config.count,
      lifecycle: config.lifecycle,
      forEach: config.forEach,
      provisioners: config.provisioners,
      connection: config.connection,
    });
    this.config = config;
  }

  /** Sensitive: known after apply, from the create response. */
  get hmacSecret(): string {
    return this.getStringAttribute('hmac_secret');
  }
  get httpStatusCode(): string {
    return this.getStringAttribute('http_status_code');
  }

  /** The shared attributes in `synth`'s JSON form. */
  protected endpointAttributes(): Record<string, unknown> {
    const c = this.config;
    return {
      name: stringToTerraform(c.name),
      client_url: stringToTerraform(c.clientUrl),
      event_types: listMapper(stringToTerraform, false)(c.eventTypes),
      description: stringToTerraform(c.description),
      active: booleanToTerraform(c.active),
    };
  }

  /** The shared attributes in `synth --hcl`'s form. */
  protected endpointHclAttributes(): Record<string, HclAttribute> {
    const c = this.config;
    return {
      name: { value: stringToHclTerraform(c.name), type: 'simple', storageClassType: 'string' },
      client_url: { value: stringToHclTerraform(c.clientUrl), type: 'simple', storageClassType: 'string' },
      event_types: {
        value: listMapperHcl(stringToHclTerraform, false)(c.eventTypes),
        type: 'list',
        storageClassType: 'stringList',
      },
      description: { value: stringToHclTerraform(c.description), type: 'simple', storageClassType: 'string' },
      active: { value: booleanToHclTerraform(c.active), type: 'simple', storageClassType: 'boolean' },
    };
  }
}
