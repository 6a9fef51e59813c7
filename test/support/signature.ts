// An implementation of the signature scheme (docs/api-contract.md#13-delivery-headers-and-signature) written apart from
// the service's signer, so a test checks the service against it.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function isGenuine(secret: string, rawBody: Buffer, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'));
  return (
    typeof header === 'string' && header.length === expected.length && timingSafeEqual(Buffer.from(header), expected)
  );
}
