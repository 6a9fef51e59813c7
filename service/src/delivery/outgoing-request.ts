// Turns payload bytes and their two signatures into the HTTP request every delivery attempt sends
// (docs/decisions.md#6-delivery-request-and-headers).
import type { Seconds } from '../core/time';
import { VERSION } from '../core/version';
import type { OutgoingDelivery } from './sender';

/**
 * `authorization` is `signPayload(secret, body)` and `standard` `standardWebhooksSignature(secret, messageId,
 * timestampSeconds, body)` (signer.ts).
 */
export function signedRequest(input: {
  url: string;
  body: Buffer;
  authorization: string;
  standard: string;
  timestampSeconds: Seconds;
  /**
   * The Standard Webhooks message id: one per delivery (an event for one webhook), the same on every attempt and
   * redelivery of it, so a receiver deduplicates on it even when it serves several webhooks.
   */
  messageId: string;
  eventId: string;
  attempt: number;
  /** W3C Trace Context: the attempt's own span in the event's trace (docs/tracing.md); not signed. */
  traceparent: string;
  tracestate: string | null;
}): OutgoingDelivery {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: input.authorization,
    'webhook-id': input.messageId,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': input.standard,
    'user-agent': `jobhooks/${VERSION}`,
    'x-jobhooks-event-id': input.eventId,
    'x-jobhooks-attempt': String(input.attempt),
    traceparent: input.traceparent,
  };
  if (input.tracestate !== null) headers.tracestate = input.tracestate;
  return { url: input.url, body: input.body, headers };
}
