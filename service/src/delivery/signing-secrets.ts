// Which secrets sign an attempt: the webhook's secret, and the one a rotation replaced while its overlap lasts
// (docs/api-contract.md#15-secret-rotation).
import type { Micros } from '../core/time';

export interface SigningSecrets {
  current: string;
  /** The replaced secret, until its overlap ends; null otherwise. */
  previous: string | null;
}

export interface SealedSecrets {
  sealedSecret: string;
  previousSealedSecret: string | null;
  /** Microseconds since the epoch. */
  previousSecretUntil: Micros | null;
}

/** The secrets that sign an attempt made at `now` (microseconds); `open` unseals one and throws when it cannot. */
export function signingSecrets(sealed: SealedSecrets, now: Micros, open: (sealed: string) => string): SigningSecrets {
  const overlapping =
    sealed.previousSealedSecret !== null && sealed.previousSecretUntil !== null && now < sealed.previousSecretUntil;
  return { current: open(sealed.sealedSecret), previous: overlapping ? open(sealed.previousSealedSecret!) : null };
}
