// The CDKTF side of jobhooks: constructs that emit the public dbt-labs/dbtcloud provider's webhook resource.
export { DbtcloudProvider, type DbtcloudProviderConfig } from './provider';
export { DbtcloudWebhook, type DbtcloudWebhookConfig, webhookConfigProblems } from './webhook';
export type { EventType } from '@jobhooks/client';
