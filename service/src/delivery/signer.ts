// Signs a delivery: the Authorization header is the lowercase hex HMAC-SHA256 of the exact body bytes (spec 5.2).
import { createHmac } from 'node:crypto';

export function signPayload(secret: string, body: Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}
