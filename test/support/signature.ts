// Implementations of the signature schemes (docs/api-contract.md#13-delivery-headers-and-signature) written apart from
// the service's signer, so a test checks the service against it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';

export function isGenuine(secret: string, rawBody: Buffer, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'));
  return (
    typeof header === 'string' && header.length === expected.length && timingSafeEqual(Buffer.from(header), expected)
  );
}

/** A webhook's `hmac_secret` as a Standard Webhooks library takes it: `whsec_` and the base64 of its UTF-8 bytes. */
export function standardWebhooksSecret(hmacSecret: string): string {
  return `whsec_${Buffer.from(hmacSecret, 'utf8').toString('base64')}`;
}

/** The three Standard Webhooks headers of a received request, as the library reads them. */
export function standardHeadersOf(request: { headers: IncomingHttpHeaders }) {
  return {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
}

/** True when the reference library (standardwebhooks) verifies the request with this secret, now. */
export function isGenuineStandard(
  hmacSecret: string,
  request: { body: Buffer; headers: IncomingHttpHeaders },
): boolean {
  try {
    new Webhook(standardWebhooksSecret(hmacSecret)).verify(request.body, standardHeadersOf(request));
    return true;
  } catch {
    return false;
  }
}
