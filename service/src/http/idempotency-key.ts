// The Idempotency-Key header, which a create and a secret rotation take: what the routes hand the services, and what
// the API reference says of it on a rotation.
import type { FastifyRequest } from 'fastify';
import { durationText, LIMITS } from '@jobhooks/client/contract';

/** The header's value; a header given twice is one value, as Node.js joins it, which the service then checks. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  return Array.isArray(key) ? key.join(',') : key;
}

/** What the API reference says of the header on a create of `what` ("webhook", "endpoint"). */
export const createIdempotency = (what: string): string =>
  `Send an Idempotency-Key header to make a retried create return the same ${what} for ` +
  `${durationText(LIMITS.idempotencyWindowMicros / 1_000_000)}.`;

export const ROTATE_IDEMPOTENCY =
  'Send an Idempotency-Key header to make a retried rotation answer with the secret the first one made, ' +
  `rotating nothing again, for ${durationText(LIMITS.idempotencyWindowMicros / 1_000_000)}.`;
