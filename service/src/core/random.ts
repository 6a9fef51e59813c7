// Randomness as a dependency, so ids and secrets are reproducible in tests that need them to be.
import { randomBytes } from 'node:crypto';

export type RandomBytes = (size: number) => Buffer;

export const cryptoRandomBytes: RandomBytes = (size) => randomBytes(size);
