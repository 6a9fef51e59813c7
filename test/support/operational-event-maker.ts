// The operational event maker of store tests: counted ids and known random bytes on a manual clock, so the events a
// test reads back are the same on every run.
import { createManualClock } from '../../service/src/core/clock';
import { createOperationalEventMaker } from '../../service/src/delivery/operational-payload';
import type { OperationalEventMaker } from '../../service/src/store/operational-plan';

/**
 * Ids are `<kind>_<idPrefix><n>`, counted from 1. Random bytes (an event's trace ids) are all `fill`, or, without
 * it, a new byte value per call, so each event gets a trace of its own.
 */
export function fakeOperationalEventMaker(options: { idPrefix?: string; fill?: number } = {}): OperationalEventMaker {
  let ids = 0;
  let fills = 0;
  return createOperationalEventMaker(
    { next: (kind) => `${kind}_${options.idPrefix ?? ''}${(ids += 1)}` },
    createManualClock(),
    (size) => Buffer.alloc(size, options.fill ?? (fills += 1) % 256),
    null,
  );
}
