// @jobhooks/pulumi: `import { Webhook, OperationalEndpoint } from '@jobhooks/pulumi'`.
export { PROVIDER_MODULE, Webhook, type WebhookArgs, type WebhookConnectionArgs } from './webhook';
export { OperationalEndpoint, type OperationalEndpointArgs } from './operational-endpoint';
export type { WebhookConnection, WebhookInputs, WebhookOutputs } from './webhook-provider';
export type { OperationalEndpointInputs, OperationalEndpointOutputs } from './operational-endpoint-provider';
export type { EventType, OperationalEventType } from '@jobhooks/client';
