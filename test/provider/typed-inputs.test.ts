// The front ends' closed inputs are typed from the contract's one list of event types, so a typo in a program
// fails at compile time (ts-jest and `npm run typecheck` both compile this file: an unused @ts-expect-error, that
// is a typo the types let through, fails them).
import type { EventType as ClientEventType, OperationalEventType, WebhookInput } from '@jobhooks/client';
import { EVENT_TYPES } from '@jobhooks/client/contract';
import type { DbtcloudWebhookConfig, EventType as CdktfEventType } from '@jobhooks/cdktf';
import type { DbtcloudWebhookConfig as CdktnWebhookConfig } from '@jobhooks/cdktn';
import type {
  EventType as PulumiEventType,
  OperationalEndpoint,
  OperationalEndpointArgs,
  OperationalEventType as PulumiOperationalEventType,
  Webhook,
  WebhookArgs,
} from '@jobhooks/pulumi';

/** True only when A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

test('eventTypes is the union of the contract list, in the client, the CDKTF and cdktn constructs and Pulumi', () => {
  const fromList: Same<(typeof EVENT_TYPES)[number], ClientEventType> = true;
  const cdktf: Same<CdktfEventType, ClientEventType> = true;
  const pulumi: Same<PulumiEventType, ClientEventType> = true;
  const constructs: Same<DbtcloudWebhookConfig['eventTypes'], ClientEventType[]> = true;
  const input: Same<WebhookInput['event_types'], ClientEventType[]> = true;
  expect([fromList, cdktf, pulumi, constructs, input]).toEqual([true, true, true, true, true]);
});

test("a typo ('job.run.failed') does not compile in any front end", () => {
  const client: WebhookInput['event_types'] = [
    'job.run.errored',
    // @ts-expect-error not an event type
    'job.run.failed',
  ];
  const cdktf: DbtcloudWebhookConfig['eventTypes'] = [
    'job.run.completed',
    // @ts-expect-error not an event type
    'job.run.failed',
  ];
  const cdktn: CdktnWebhookConfig['eventTypes'] = [
    // @ts-expect-error not an event type
    'job.run.failed',
  ];
  const pulumi: WebhookArgs['eventTypes'] = [
    'job.run.started',
    // @ts-expect-error not an event type
    'job.run.failed',
  ];
  // Each list holds what it was given: the types refuse the typo, nothing at run time removed it.
  expect([client, cdktf, cdktn, pulumi].map((list) => (list as string[]).includes('job.run.failed'))).toEqual([
    true,
    true,
    true,
    true,
  ]);
  expect(EVENT_TYPES).not.toContain('job.run.failed');
});

test("Pulumi's OperationalEndpoint takes only operational event types: a typo or a job-run type does not compile", () => {
  const union: Same<PulumiOperationalEventType, OperationalEventType> = true;
  const eventTypes: OperationalEndpointArgs['eventTypes'] = [
    'webhook.archived',
    // @ts-expect-error not an event type
    'webhook.archive',
    // @ts-expect-error a webhook's event type, not an operational one
    'job.run.completed',
  ];
  expect([union, (eventTypes as string[]).includes('webhook.archive')]).toEqual([true, true]);
});

test('every output docs/iac-pulumi.md names is declared on its Pulumi class (a name missing does not compile)', () => {
  const webhook: Array<keyof Webhook> = [
    ...(['name', 'clientUrl', 'eventTypes', 'description', 'jobIds', 'active', 'maxRequestsPerSecond'] as const),
    ...(['adoptWebhookId', 'connection', 'secretRotation', 'secretOverlapSeconds'] as const),
    ...(['webhookId', 'hmacSecret', 'httpStatusCode', 'accountIdentifier', 'archived'] as const),
    'previousSecretExpiresAt',
  ];
  const endpoint: Array<keyof OperationalEndpoint> = [
    ...(['adoptEndpointId', 'connection', 'secretRotation', 'secretOverlapSeconds', 'endpointId'] as const),
    ...(['hmacSecret', 'previousSecretExpiresAt', 'httpStatusCode', 'archived'] as const),
  ];
  expect([webhook.length, endpoint.length]).toEqual([17, 9]);
});
