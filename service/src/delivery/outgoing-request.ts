// Turns payload bytes into the signed HTTP request every delivery attempt sends (design section 2, "Delivery").
import { VERSION } from '../core/version';
import type { OutgoingDelivery } from './sender';
import { signPayload } from './signer';

export function signedRequest(input: { url: string; body: Buffer; secret: string; eventId: string; attempt: number }): OutgoingDelivery {
  return {
    url: input.url,
    body: input.body,
    headers: {
      'content-type': 'application/json',
      authorization: signPayload(input.secret, input.body),
      'user-agent': `jobhooks/${VERSION}`,
      'x-jobhooks-event-id': input.eventId,
      'x-jobhooks-attempt': String(input.attempt),
    },
  };
}
