// Turns payload bytes and their signature into the HTTP request every delivery attempt sends
// (docs/decisions.md#6-delivery-request-and-headers).
import { VERSION } from '../core/version';
import type { OutgoingDelivery } from './sender';

/** `signature` is `signPayload(secret, body)` (signer.ts), computed once per delivery by the caller. */
export function signedRequest(input: {
  url: string;
  body: Buffer;
  signature: string;
  eventId: string;
  attempt: number;
}): OutgoingDelivery {
  return {
    url: input.url,
    body: input.body,
    headers: {
      'content-type': 'application/json',
      authorization: input.signature,
      'user-agent': `jobhooks/${VERSION}`,
      'x-jobhooks-event-id': input.eventId,
      'x-jobhooks-attempt': String(input.attempt),
    },
  };
}
