// API tokens: generated with enough entropy to be unguessable, stored only as SHA-256 hashes.
import { hash } from 'node:crypto';
import type { RandomBytes } from '../core/random';

const TOKEN_PREFIX = 'jhk_';
const TOKEN_BYTES = 32;

export function generateApiToken(random: RandomBytes): string {
  return TOKEN_PREFIX + random(TOKEN_BYTES).toString('base64url');
}

/**
 * A fast hash is right here: tokens carry 256 random bits, so there is nothing to brute-force, and
 * looking a token up by its hash compares no secret byte by byte. Every API request hashes its token, so this is
 * the one-shot `hash`, which makes no Hash stream object per call (docs/performance.md#measurements-behind-choices-in-the-code).
 */
export function hashApiToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Parses `Token <t>` or `Bearer <t>` (both used by real clients); null when the header has neither. */
export function tokenFromAuthorization(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
