// @jobhooks/client: the typed client of the webhooks management API, and the rules every IaC front end
// applies to a declared webhook. The zod contract it is built on is `@jobhooks/client/contract`.
export {
  ApiError,
  type ClientOptions,
  createWebhooksClient,
  DEFAULT_RETRYABLE_STATUSES,
  FIRST_RETRY_DELAY_MS,
  type IngestInput,
  InvalidRequest,
  type OperationalEndpointInput,
  type RetryWait,
  type RotationOptions,
  UnexpectedAnswer,
  type WebhookInput,
  type WebhooksClient,
} from './client';
export { CliError } from './cli-error';
export {
  type Connection,
  CONNECTION_HELP,
  type ConnectionFlags,
  CONNECTION_VARIABLES,
  connectionFrom,
  ConnectionProblem,
  describeApiFailure,
  fromEnvironment,
} from './connection-settings';
/** The event names a webhook may subscribe to, as a union type derived from the contract's one list. */
export type { EventType, OperationalEventType } from './contract/vocabulary';
export { hostUrlProblem } from './host-url';
export { tokenProblem } from './api-token';
export { outputTime, rfc3339FromMicros } from './output-times';
export {
  FIELD_OF_PROPERTY,
  type OperationalEndpointProblem,
  type OperationalEndpointProperties,
  operationalEndpointProblems,
  type WebhookProblem,
  type WebhookProperties,
  webhookProblems,
} from './webhook-problems';
export { HalfMadeUpdate, rotationIdempotencyKey, updateWebhook, urlChangeWhileInactive } from './webhook-updates';
export {
  DBTCLOUD_PROVIDER_ADDRESS,
  DBTCLOUD_PROVIDER_CONSTRAINT,
  DBTCLOUD_PROVIDER_SOURCE,
  DBTCLOUD_PROVIDER_VERSION,
} from './dbtcloud-provider';
