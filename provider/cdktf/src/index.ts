// The CDKTF side of jobhooks: constructs that emit the public dbt-labs/dbtcloud provider's webhook resource, and
// jobhooks' own operational endpoint resource, which only jobhooks' provider serves.
export { DbtcloudProvider, type DbtcloudProviderConfig } from './provider';
export { DbtcloudWebhook, type DbtcloudWebhookConfig, webhookConfigProblems } from './webhook';
export {
  DbtcloudOperationalEndpoint,
  type DbtcloudOperationalEndpointConfig,
  operationalEndpointConfigProblems,
} from './operational-endpoint';
export type { EventType, OperationalEventType } from '@jobhooks/client';
