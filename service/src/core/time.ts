// Time with its unit in its type. The service keeps instants and durations as plain numbers in several units
// (microseconds in the database and the delivery rules, milliseconds for rate windows and timers, seconds in
// signatures); a value typed in one unit cannot be passed where another is expected without the compiler saying
// so. The brand is optional, so a plain number (a literal, a database column, a sum) still fits any unit: a
// conversion is written where the units meet, and arithmetic gives back a plain number.
declare const unit: unique symbol;

/** Microseconds: since the Unix epoch for an instant, or a duration. The database's unit. */
export type Micros = number & { readonly [unit]?: 'microseconds' };
/** Milliseconds: since the Unix epoch for an instant, or a duration. Timers' and rate windows' unit. */
export type Millis = number & { readonly [unit]?: 'milliseconds' };
/** Whole seconds: signature timestamps, Retry-After. */
export type Seconds = number & { readonly [unit]?: 'seconds' };

export const MICROS_PER_MILLI = 1000;
export const MICROS_PER_SECOND = 1_000_000;

export function microsFromMillis(millis: Millis): Micros {
  return millis * MICROS_PER_MILLI;
}

/** Whole milliseconds, rounded down. */
export function millisFromMicros(micros: Micros): Millis {
  return Math.floor(micros / MICROS_PER_MILLI);
}

/** Whole seconds, rounded down. */
export function secondsFromMicros(micros: Micros): Seconds {
  return Math.floor(micros / MICROS_PER_SECOND);
}

export function microsFromSeconds(seconds: Seconds): Micros {
  return seconds * MICROS_PER_SECOND;
}
