// `resource "dbtcloud_webhook"` for CDKTF apps: the public provider's resource exactly (names, types, required,
// optional and computed attributes, sensitive hmac_secret), checked at synth time with the service's schemas; plus
// jobhooks' own delivery rate, emitted only when set, so a stack without it stays the public provider's.
import { listMapper, listMapperHcl, numberToHclTerraform, numberToTerraform } from 'cdktf';
import type { Construct } from 'constructs';
import { type EventType, webhookProblems } from '@jobhooks/client';
import { type EndpointConfig, EndpointResource, isKnownAtSynth, problemLines } from './endpoint-resource';
import { hclAttributes } from './hcl';

export interface DbtcloudWebhookConfig extends EndpointConfig<EventType> {
  /**
   * A typo ('job.run.failed') fails at compile time: the names come from the contract's list. A list from a
   * Terraform variable is a token list (string[]): cast it, `variable.listValue as EventType[]`.
   */
  eventTypes: EventType[];
  /** Empty or omitted: every job of the account. */
  jobIds?: number[];
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
  return problemLines(webhookProblems(config, isKnownAtSynth));
}

export class DbtcloudWebhook extends EndpointResource<EventType> {
  static readonly tfResourceType = 'dbtcloud_webhook';
  private readonly webhookConfig: DbtcloudWebhookConfig;

  constructor(scope: Construct, id: string, config: DbtcloudWebhookConfig) {
    super(scope, id, DbtcloudWebhook.tfResourceType, config, webhookConfigProblems(config));
    this.webhookConfig = config;
  }

  /** The webhook id (`wsu_...`). */
  get webhookId(): string {
    return this.getStringAttribute('id');
  }
  get accountIdentifier(): string {
    return this.getStringAttribute('account_identifier');
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    const c = this.webhookConfig;
    return {
      ...this.endpointAttributes(),
      job_ids: listMapper(numberToTerraform, false)(c.jobIds),
      max_requests_per_second: numberToTerraform(c.maxRequestsPerSecond),
    };
  }

  protected override synthesizeHclAttributes(): Record<string, unknown> {
    const c = this.webhookConfig;
    return hclAttributes({
      ...this.endpointHclAttributes(),
      job_ids: {
        value: listMapperHcl(numberToHclTerraform, false)(c.jobIds),
        type: 'list',
        storageClassType: 'numberList',
      },
      max_requests_per_second: {
        value: numberToHclTerraform(c.maxRequestsPerSecond),
        type: 'simple',
        storageClassType: 'number',
      },
    });
  }
}
