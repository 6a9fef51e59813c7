// Randomness as a dependency, so ids and secrets are reproducible in tests that need them to be.
import { randomFillSync } from 'node:crypto';

export type RandomBytes = (size: number) => Buffer;

/**
 * Bytes are drawn from the OS CSPRNG a block at a time: one randomFillSync per 4 KiB instead of one per call
 * (each id takes 16 bytes, each attempt's jitter 4, and ingestion makes thousands of ids a second).
 */
const POOL_BYTES = 4096;

/** `fill` is the OS source (randomFillSync); a test passes its own to count the draws. */
export function createPooledRandomBytes(fill: (buffer: Buffer) => Buffer = randomFillSync): RandomBytes {
  let pool: Buffer = Buffer.alloc(0);
  let offset = 0;
  return (size) => {
    if (size > POOL_BYTES) return fill(Buffer.allocUnsafe(size));
    if (offset + size > pool.length) {
      pool = fill(Buffer.allocUnsafe(POOL_BYTES));
      offset = 0;
    }
    const bytes = Buffer.from(pool.subarray(offset, offset + size));
    // Each byte is handed out once, and the pool keeps no copy of what became a secret or a key.
    pool.fill(0, offset, offset + size);
    offset += size;
    return bytes;
  };
}

export const cryptoRandomBytes: RandomBytes = createPooledRandomBytes();

/** A uniform number in [0, 1) from a random source: the jitter of retry delays and open circuits. */
export function uniformFraction(random: RandomBytes): number {
  return random(4).readUInt32BE(0) / 2 ** 32;
}
