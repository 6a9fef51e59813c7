// Signs a delivery: the Authorization header is the lowercase hex HMAC-SHA256 of the exact body bytes
// (docs/api-contract.md#13-delivery-headers-and-signature).
import { createHmac } from 'node:crypto';

export function signPayload(secret: string, body: Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/**
 * A delivery's signature: the one an earlier attempt stored (deliveries.signature), or its payload signed now.
 * `secret` is only called when there is none, so a retry needs no decrypted secret.
 */
export function signatureOf(delivery: { signature: string | null; payload: Buffer }, secret: () => string): string {
  return delivery.signature ?? signPayload(secret(), delivery.payload);
}
