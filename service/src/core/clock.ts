// Time as a dependency: core logic asks a Clock, so tests can move time instead of waiting for it.
import type { Micros, Millis } from './time';

export interface Clock {
  /** Nanoseconds since the Unix epoch. */
  nowNanos(): bigint;
}

export const NANOS_PER_MICRO = 1000n;

export function nanosToMicros(nanos: bigint): Micros {
  return Number(nanos / NANOS_PER_MICRO);
}

export function nowMicros(clock: Clock): Micros {
  return nanosToMicros(clock.nowNanos());
}

/** Whole milliseconds since the epoch: the unit of rate windows, cooldowns and cluster-wide results. */
export function nowMillis(clock: Clock): Millis {
  return Number(clock.nowNanos() / 1_000_000n);
}

/**
 * Wall-clock time with sub-millisecond resolution: the epoch offset is read once from Date.now() and
 * then advanced by the monotonic high-resolution timer, so readings never go backwards.
 */
export function createSystemClock(): Clock {
  const epochAtStart = BigInt(Date.now()) * 1_000_000n;
  const hrtimeAtStart = process.hrtime.bigint();
  return { nowNanos: () => epochAtStart + (process.hrtime.bigint() - hrtimeAtStart) };
}

/** A clock that stands still until told to move; for tests and simulations. */
export interface ManualClock extends Clock {
  set(nanos: bigint): void;
  advanceMillis(millis: number): void;
}

export function createManualClock(startNanos: bigint = 1_700_000_000_000_000_000n): ManualClock {
  let now = startNanos;
  return {
    nowNanos: () => now,
    set: (nanos) => {
      now = nanos;
    },
    advanceMillis: (millis) => {
      now += BigInt(Math.round(millis * 1_000_000));
    },
  };
}
