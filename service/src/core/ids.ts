// Prefixed, time-ordered identifiers (docs/decisions.md#1-identifiers): unique across instances without coordination.
import { ulid } from 'ulid';
import { type Clock, nowMillis } from './clock';
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

/** A ULID's random part: 16 base-32 characters, one byte drawn for each. */
const RANDOM_CHARACTERS = 16;

export function createIdGenerator(clock: Clock, random: RandomBytes): IdGenerator {
  return {
    next: (kind) => {
      // ulid wants a PRNG returning [0, 1); feed it one draw of bytes from the injected source per id.
      const bytes = random(RANDOM_CHARACTERS);
      let used = 0;
      const prng = () => bytes[used++ % RANDOM_CHARACTERS]! / 256;
      return ID_PREFIXES[kind] + ulid(nowMillis(clock), prng);
    },
  };
}

/** True when `value` has the shape of an id of `kind`; anything else cannot name a stored row. */
export function isIdOf(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIXES[kind];
  return value.startsWith(prefix) && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value.slice(prefix.length));
}
