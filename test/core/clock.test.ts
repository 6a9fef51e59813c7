// The system clock follows the wall clock (peers compare its times with theirs), smoothly between its readings.
import { createSystemClock, type TimeSources, WALL_CLOCK_TOLERANCE_MS } from '../../service/src/core/clock';

/** Time sources that move only when told: the wall clock in ms, the monotonic one in ns. */
function fakeSources(wallMillis: number) {
  const now = { wall: wallMillis, monotonic: 5_000_000_000n };
  const sources: TimeSources = { wallMillis: () => now.wall, monotonicNanos: () => now.monotonic };
  return { now, sources };
}

test('between whole milliseconds of the wall clock, the monotonic timer gives the fraction', () => {
  const { now, sources } = fakeSources(1_800_000_000_000);
  const clock = createSystemClock(sources);
  expect(clock.nowNanos()).toBe(1_800_000_000_000_000_000n);
  now.monotonic += 250_000n; // a quarter of a millisecond; the wall clock has not ticked
  expect(clock.nowNanos()).toBe(1_800_000_000_000_250_000n);
});

test('a suspended machine (the monotonic timer stopped while the wall clock ran 70 s) reads the wall clock again', () => {
  const { now, sources } = fakeSources(1_800_000_000_000);
  const clock = createSystemClock(sources);
  now.wall += 70_000;
  expect(clock.nowNanos()).toBe(1_800_000_070_000_000_000n);
  now.monotonic += 2_000_000n;
  now.wall += 2;
  expect(clock.nowNanos()).toBe(1_800_000_070_002_000_000n);
});

test('a wall clock set back by more than the tolerance is followed; a small difference is smoothed over', () => {
  const { now, sources } = fakeSources(1_800_000_000_000);
  const clock = createSystemClock(sources);
  now.monotonic += 10_000_000n;
  now.wall += 10 - WALL_CLOCK_TOLERANCE_MS; // the wall clock stepped back by exactly the tolerance
  expect(clock.nowNanos()).toBe(1_800_000_000_010_000_000n);
  now.wall -= 1;
  expect(clock.nowNanos()).toBe(BigInt(now.wall) * 1_000_000n);
});

test('with the real sources, a reading is the wall clock within the tolerance', () => {
  const clock = createSystemClock();
  const before = Date.now();
  const reading = Number(clock.nowNanos() / 1_000_000n);
  expect(Math.abs(reading - before)).toBeLessThanOrEqual(WALL_CLOCK_TOLERANCE_MS);
});
