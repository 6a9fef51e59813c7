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

/** Where a system clock reads the time: the wall clock in ms, and a monotonic clock in ns. */
export interface TimeSources {
  wallMillis(): number;
  monotonicNanos(): bigint;
}

const SYSTEM_TIME: TimeSources = { wallMillis: Date.now, monotonicNanos: process.hrtime.bigint };

/** How far the monotonic estimate may part from the wall clock before it is set to it again. */
export const WALL_CLOCK_TOLERANCE_MS = 1000;

/**
 * Wall-clock time with sub-millisecond resolution: the wall clock read at an anchor, advanced by the monotonic
 * timer, and anchored again whenever the two part by more than a second. Leases, retries and circuits are compared
 * with times other instances wrote, so the clock must follow the machine's wall clock, which NTP keeps in step with
 * theirs: a monotonic timer alone stops while a machine or VM is suspended and ignores a corrected clock, and an
 * instance so behind would write leases that its peers already see as expired. Readings go back only when the wall
 * clock itself is set back by more than that second.
 */
export function createSystemClock(sources: TimeSources = SYSTEM_TIME): Clock {
  let anchorNanos = 0n;
  let anchorMonotonic = 0n;
  const anchor = (wallMillis: number, monotonic: bigint) => {
    anchorNanos = BigInt(wallMillis) * 1_000_000n;
    anchorMonotonic = monotonic;
  };
  anchor(sources.wallMillis(), sources.monotonicNanos());
  return {
    nowNanos: () => {
      const monotonic = sources.monotonicNanos();
      const estimate = anchorNanos + (monotonic - anchorMonotonic);
      const wallMillis = sources.wallMillis();
      if (Math.abs(Number(estimate / 1_000_000n) - wallMillis) <= WALL_CLOCK_TOLERANCE_MS) return estimate;
      anchor(wallMillis, monotonic);
      return anchorNanos;
    },
  };
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
