// The Pulumi side of jobhooks: `import { Webhook } from 'jobhooks/provider/pulumi'`.
export { Webhook, type WebhookArgs } from './webhook';
export type { WebhookInputs, WebhookOutputs } from './webhook-provider';
