// `provider "dbtcloud"` for CDKTF apps: the public dbt-labs/dbtcloud provider's configuration, so a synthesized
// stack works with the public provider and with this project's own.
import {
  TerraformProvider,
  numberToHclTerraform,
  numberToTerraform,
  booleanToHclTerraform,
  booleanToTerraform,
  stringToHclTerraform,
  stringToTerraform,
} from 'cdktf';
import { DBTCLOUD_PROVIDER_CONSTRAINT, DBTCLOUD_PROVIDER_SOURCE } from '@jobhooks/client';
import type { Construct } from 'constructs';
import { hclAttributes } from './hcl';

export interface DbtcloudProviderConfig {
  /** Or DBT_CLOUD_ACCOUNT_ID. */
  accountId?: number;
  /** Or DBT_CLOUD_TOKEN. Prefer a variable or the environment to a literal in code. */
  token?: string;
  /** The API base URL ending in /api, or DBT_CLOUD_HOST_URL. */
  hostUrl?: string;
  skipCredentialsValidation?: boolean;
  alias?: string;
  /**
   * The `required_providers` version constraint; `~> 1.12` by default, which the provider that
   * `jobhooks-terraform-provider install` sets up satisfies (and `cdktf deploy` needs one).
   */
  versionConstraint?: string;
}

export class DbtcloudProvider extends TerraformProvider {
  static readonly tfResourceType = 'dbtcloud';
  private readonly config: DbtcloudProviderConfig;

  constructor(scope: Construct, id: string, config: DbtcloudProviderConfig = {}) {
    super(scope, id, {
      terraformResourceType: DbtcloudProvider.tfResourceType,
      terraformGeneratorMetadata: {
        providerName: 'dbtcloud',
        providerVersion: config.versionConstraint ?? DBTCLOUD_PROVIDER_CONSTRAINT,
      },
      terraformProviderSource: DBTCLOUD_PROVIDER_SOURCE,
    });
    this.config = config;
    this.alias = config.alias;
  }

  protected override synthesizeAttributes(): Record<string, unknown> {
    return {
      account_id: numberToTerraform(this.config.accountId),
      token: stringToTerraform(this.config.token),
      host_url: stringToTerraform(this.config.hostUrl),
      skip_credentials_validation: booleanToTerraform(this.config.skipCredentialsValidation),
      alias: stringToTerraform(this.config.alias),
    };
  }

  protected override synthesizeHclAttributes(): Record<string, unknown> {
    return hclAttributes({
      account_id: { value: numberToHclTerraform(this.config.accountId), type: 'simple', storageClassType: 'number' },
      token: { value: stringToHclTerraform(this.config.token), type: 'simple', storageClassType: 'string' },
      host_url: { value: stringToHclTerraform(this.config.hostUrl), type: 'simple', storageClassType: 'string' },
      skip_credentials_validation: {
        value: booleanToHclTerraform(this.config.skipCredentialsValidation),
        type: 'simple',
        storageClassType: 'boolean',
      },
      alias: { value: stringToHclTerraform(this.config.alias), type: 'simple', storageClassType: 'string' },
    });
  }
}
