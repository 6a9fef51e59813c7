// `resource "dbtcloud_webhook"` for CDKTF apps: the public provider's resource exactly (names, types, required,
// optional and computed attributes, sensitive hmac_secret), checked at synth time with the service's schemas; plus
// jobhooks' own delivery rate, emitted only when set, so a stack without it stays the public provider's.
import {
  booleanToHclTerraform,
  booleanToTerraform,
  type IResolvable,
  listMapper,
  listMapperHcl,
  numberToHclTerraform,
  numberToTerraform,
  stringToHclTerraform,
  stringToTerraform,
  type TerraformMetaArguments,
  TerraformResource,
  Token,
} from 'cdktf';
import type { Construct } from 'constructs';
import { type EventType, webhookProblems } from '@jobhooks/client';
import { hclAttributes } from './hcl';

export interface DbtcloudWebhookConfig extends TerraformMetaArguments {
  name: string;
  clientUrl: string;
  /**
   * A typo ('job.run.failed') fails at compile time: the names come from the contract's list. A list from a
   * Terraform variable is a token list (string[]): cast it, `variable.listValue as EventType[]`.
   */
  eventTypes: EventType[];
  description?: string;
  /** Empty or omitted: every job of the account. */
  jobIds?: number[];
  active?: boolean | IResolvable;
  /**
   * jobhooks' own (dbt Cloud has no such field, so a stack that sets it deploys only with jobhooks' provider): the
   * most requests per second sent to `clientUrl`, counted over all instances, 1 to 100; omitted: no limit.
   */
  maxRequestsPerSecond?: number;
}

/**
 * The problems of the values known at synth time, by property, in the service's own words. Values that are
 * tokens (variables, references) are checked by Terraform at plan time instead.
 */
export function webhookConfigProblems(config: DbtcloudWebhookConfig): string[] {
  return webhookProblems(config, (value) => !Token.isUnresolved(value)).map(
    ({ property, reason }) => `${property}: ${reason}`,
  );
}

export class DbtcloudWebhook extends TerraformResource {
  static readonly tfResourceType = 'dbtcloud_webhook';
  private readonly config: DbtcloudWebhookConfig;

  constructor(scope: Construct, id: string, config: DbtcloudWebhookConfig) {
    const problems = webhookConfigProblems(config);
    if (problems.length > 0) throw new Error(`Invalid dbtcloud_webhook "${id}":\n  ${problems.join('\n  ')}`);
    super(scope, id, {
      terraformResourceType: DbtcloudWebhook.tfResourceType,
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

  /** The webhook id (`wsu_...`). */
  get webhookId(): string {
    return this.getStringAttribute('id');
  }
  /** Sensitive: known after apply, from the create response. */
  get hmacSecret(): string {
    return this.getStringAttribute('hmac_secret');
  }
  get httpStatusCode(): string {
    return this.getStringAttribute('http_status_code');
  }
  get accountIdentifier(): string {
    return this.getStringAttribute('account_identifier');
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const c = this.config;
    return {
      name: stringToTerraform(c.name),
      client_url: stringToTerraform(c.clientUrl),
      event_types: listMapper(stringToTerraform, false)(c.eventTypes),
      description: stringToTerraform(c.description),
      job_ids: listMapper(numberToTerraform, false)(c.jobIds),
      active: booleanToTerraform(c.active),
      max_requests_per_second: numberToTerraform(c.maxRequestsPerSecond),
    };
  }

  protected override synthesizeHclAttributes(): Record<string, unknown> {
    const c = this.config;
    return hclAttributes({
      name: { value: stringToHclTerraform(c.name), type: 'simple', storageClassType: 'string' },
      client_url: { value: stringToHclTerraform(c.clientUrl), type: 'simple', storageClassType: 'string' },
      event_types: {
        value: listMapperHcl(stringToHclTerraform, false)(c.eventTypes),
        type: 'list',
        storageClassType: 'stringList',
      },
      description: { value: stringToHclTerraform(c.description), type: 'simple', storageClassType: 'string' },
      job_ids: {
        value: listMapperHcl(numberToHclTerraform, false)(c.jobIds),
        type: 'list',
        storageClassType: 'numberList',
      },
      active: { value: booleanToHclTerraform(c.active), type: 'simple', storageClassType: 'boolean' },
      max_requests_per_second: {
        value: numberToHclTerraform(c.maxRequestsPerSecond),
        type: 'simple',
        storageClassType: 'number',
      },
    });
  }
}
