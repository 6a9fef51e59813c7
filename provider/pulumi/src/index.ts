// @jobhooks/pulumi: `import { Webhook } from '@jobhooks/pulumi'`.
export { PROVIDER_MODULE, Webhook, type WebhookArgs, type WebhookConnectionArgs } from './webhook';
export type { WebhookConnection, WebhookInputs, WebhookOutputs } from './webhook-provider';
export type { EventType } from '@jobhooks/client';
