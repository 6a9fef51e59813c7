// @jobhooks/pulumi: `import { Webhook } from '@jobhooks/pulumi'`.
export { PROVIDER_MODULE, Webhook, type WebhookArgs } from './webhook';
export type { WebhookConnection, WebhookInputs, WebhookOutputs } from './webhook-provider';
