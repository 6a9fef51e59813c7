// Signs a delivery twice, with the webhook's one `hmac_secret` (its UTF-8 bytes are the key of both):
// - dbt Cloud's scheme: `Authorization` is the lowercase hex HMAC-SHA256 of the exact body bytes, the same on every
//   attempt (docs/api-contract.md#13-delivery-headers-and-signature);
// - the Standard Webhooks scheme: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`,
//   with the attempt's own timestamp, so a receiver can refuse a replayed request.
import type { Seconds } from '../core/time';
import { createHmac } from 'node:crypto';

export function signPayload(secret: string, body: Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** The `webhook-signature` value of one attempt: `messageId` is `webhook-id`, `timestampSeconds` `webhook-timestamp`. */
export function standardWebhooksSignature(
  secret: string,
  messageId: string,
  timestampSeconds: Seconds,
  body: Uint8Array,
): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${messageId}.${timestampSeconds}.`);
  hmac.update(body);
  return `v1,${hmac.digest('base64')}`;
}
