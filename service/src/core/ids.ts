// Prefixed, time-ordered identifiers (design section 2): unique across instances without coordination.
import { ulid } from 'ulid';
import { type Clock, nowMicros } from './clock';
import type { RandomBytes } from './random';

export const ID_PREFIXES = {
  webhook: 'wsu_',
  event: 'wev_',
  account: 'act_',
  token: 'tok_',
  delivery: 'wdl_',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

export interface IdGenerator {
  next(kind: IdKind): string;
}

export function createIdGenerator(clock: Clock, random: RandomBytes): IdGenerator {
  // ulid wants a PRNG returning [0, 1); feed it from the injected byte source.
  const prng = () => random(1)[0]! / 256;
  return {
    next: (kind) => ID_PREFIXES[kind] + ulid(Math.floor(nowMicros(clock) / 1000), prng),
  };
}

/** True when `value` has the shape of an id of `kind`; anything else cannot name a stored row. */
export function isIdOf(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIXES[kind];
  return value.startsWith(prefix) && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value.slice(prefix.length));
}
