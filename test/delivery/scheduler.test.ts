// The dispatcher's scheduler on fake timers: wake-ups coalesced per turn, one more turn for a wake-up during a
// turn, the poll, request slots in all and per webhook, and the graceful stop.
import { createScheduler, type EndRequest, type Scheduler } from '../../service/src/delivery/scheduler';

const LIMITS = { maxInFlight: 3, maxInFlightPerWebhook: 2, pollIntervalMs: 1_000 };

let turns: number;
let turn: () => Promise<void>;
let scheduler: Scheduler;
const errors: unknown[] = [];

beforeEach(() => {
  // Timeouts (the poll, the grace period) run on the fake clock; the end-of-turn callbacks stay real.
  jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
  turns = 0;
  turn = async () => undefined;
  errors.length = 0;
  scheduler = createScheduler(
    LIMITS,
    () => ((turns += 1), turn()),
    (error) => errors.push(error),
  );
});
afterEach(async () => {
  const stopped = scheduler.stop(0);
  await jest.advanceTimersByTimeAsync(0);
  await stopped;
  jest.useRealTimers();
  expect(errors).toEqual([]);
});

/** Lets the turns and the promises they started settle, without moving the clock. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A task that holds its slot until `finish` is called; `endRequest` frees the slot earlier. */
function heldTask() {
  let finish: () => void = () => undefined;
  let endRequest: EndRequest = () => undefined;
  const task = (end: EndRequest) => {
    endRequest = end;
    return new Promise<void>((resolve) => {
      finish = resolve;
    });
  };
  return { task, finish: () => finish(), endRequest: () => endRequest() };
}

test('nothing runs before start; the wake-ups of one turn make one turn', async () => {
  scheduler.wake();
  await settle();
  expect(turns).toBe(0);
  scheduler.start();
  scheduler.wake();
  scheduler.wake();
  scheduler.wake();
  await settle();
  expect(turns).toBe(1);
});

test('a wake-up during a turn makes exactly one more turn after it, however many came', async () => {
  let finishTurn: () => void = () => undefined;
  turn = () =>
    new Promise<void>((resolve) => {
      finishTurn = resolve;
    });
  scheduler.start();
  await settle();
  expect(turns).toBe(1);
  scheduler.wake();
  await settle();
  scheduler.wake();
  await settle();
  expect(turns).toBe(1);
  turn = async () => undefined;
  finishTurn();
  await settle();
  expect(turns).toBe(2);
});

test('with nothing to wake it, the scheduler looks again every poll interval', async () => {
  scheduler.start();
  await settle();
  expect(turns).toBe(1);
  await jest.advanceTimersByTimeAsync(999);
  expect(turns).toBe(1);
  await jest.advanceTimersByTimeAsync(1);
  await settle();
  expect(turns).toBe(2);
  await jest.advanceTimersByTimeAsync(1_000);
  await settle();
  expect(turns).toBe(3);
});

test('a failed turn is reported and the scheduler keeps polling', async () => {
  turn = async () => {
    throw new Error('database is locked');
  };
  scheduler.start();
  await settle();
  expect(errors).toEqual([new Error('database is locked')]);
  errors.length = 0;
  turn = async () => undefined;
  await jest.advanceTimersByTimeAsync(1_000);
  await settle();
  expect(turns).toBe(2);
});

test('launched tasks take slots in all and per webhook, and the room says what is left', () => {
  scheduler.launch({ webhookId: 'wh_a', accountId: 1 }, heldTask().task);
  scheduler.launch({ webhookId: 'wh_a', accountId: 1 }, heldTask().task);
  scheduler.launch({ webhookId: 'wh_b', accountId: 1 }, heldTask().task);
  expect(scheduler.inFlight()).toBe(3);
  const room = scheduler.room(0);
  expect(room.total).toBe(0);
  expect(room.maxPerWebhook).toBe(2);
  expect(Object.fromEntries(room.inFlight)).toEqual({ wh_a: 2, wh_b: 1 });
  expect(Object.fromEntries(room.inFlightByAccount)).toEqual({ 1: 3 });
});

test('a slot is freed once, when the request ends, and that wakes the scheduler for the next claim', async () => {
  scheduler.start();
  await settle();
  const held = heldTask();
  scheduler.launch({ webhookId: 'wh_a', accountId: 1 }, held.task);
  expect(scheduler.inFlight()).toBe(1);
  held.endRequest();
  held.endRequest();
  expect(scheduler.inFlight()).toBe(0);
  expect(scheduler.room(0).inFlight.size).toBe(0);
  await settle();
  expect(turns).toBe(2);
  held.finish();
  await settle();
  expect(scheduler.inFlight()).toBe(0);
});

test('results not yet written hold claims back once they fill as many places again as there are slots', async () => {
  scheduler.start();
  await settle();
  const launchEnded = (count: number) =>
    Array.from({ length: count }, (_, i) => {
      const held = heldTask();
      scheduler.launch({ webhookId: `w${i}`, accountId: 1 }, held.task);
      held.endRequest(); // the endpoint answered; the result is on its way to the database
      return held;
    });
  const first = launchEnded(LIMITS.maxInFlight);
  expect(scheduler.inFlight()).toBe(0);
  expect(scheduler.room(0).total).toBe(LIMITS.maxInFlight);
  launchEnded(LIMITS.maxInFlight);
  expect(scheduler.room(0).total).toBe(0);
  await settle();
  const turnsBefore = turns;
  first[0]!.finish(); // one result written
  await settle();
  expect(turns).toBe(turnsBefore + 1);
  expect(scheduler.room(0).total).toBe(1);
});

test('a task that never ends its request frees its slot when it settles, even by failing', async () => {
  scheduler.launch({ webhookId: 'wh_a', accountId: 1 }, async () => {
    throw new Error('lost');
  });
  await settle();
  expect(scheduler.inFlight()).toBe(0);
  expect(errors).toEqual([new Error('lost')]);
  errors.length = 0;
});

test('stop ends turns and polls, and waits for launched tasks up to its grace period', async () => {
  scheduler.start();
  await settle();
  const held = heldTask();
  scheduler.launch({ webhookId: 'wh_a', accountId: 1 }, held.task);
  let stopped = false;
  const stopping = scheduler.stop(5_000).then(() => {
    stopped = true;
  });
  await jest.advanceTimersByTimeAsync(4_999);
  expect(stopped).toBe(false);
  held.finish();
  await settle();
  expect(stopped).toBe(true);
  await stopping;
  scheduler.wake();
  await jest.advanceTimersByTimeAsync(10_000);
  expect(turns).toBe(1);
});

test('stop gives up on a task that outlives the grace period', async () => {
  scheduler.launch({ webhookId: 'wh_a', accountId: 1 }, heldTask().task);
  let stopped = false;
  const stopping = scheduler.stop(5_000).then(() => {
    stopped = true;
  });
  await jest.advanceTimersByTimeAsync(5_000);
  expect(stopped).toBe(true);
  await stopping;
});

test('requests to endpoints not proven healthy are counted against their share of the slots, and given back', () => {
  const limits = { maxInFlight: 10, maxInFlightPerWebhook: 4, pollIntervalMs: 1_000 };
  const capacity = {
    allowed: () => 4,
    blocked: () => [],
    standing: (id: string) => (id === 'wh_new' ? 'unknown' : 'proven'),
  } as const;
  const shared = createScheduler(
    limits,
    async () => undefined,
    (error) => errors.push(error),
    capacity,
  );
  expect(shared.room(0).unprovenTotal).toBe(8);
  const held = heldTask();
  shared.launch({ webhookId: 'wh_new', accountId: 1 }, held.task);
  shared.launch({ webhookId: 'wh_good', accountId: 1 }, heldTask().task);
  expect(shared.room(0)).toMatchObject({ total: 8, unprovenTotal: 7 });
  held.endRequest();
  expect(shared.room(0)).toMatchObject({ total: 9, unprovenTotal: 8 });
});

test('a wake-up asked for past the longest timer (about 24.8 days) is left to the poll, not made at once', async () => {
  scheduler.start();
  await settle();
  const before = turns;
  scheduler.wakeAfter(2 ** 31);
  await jest.advanceTimersByTimeAsync(10);
  expect(turns).toBe(before);
  scheduler.wakeAfter(2 ** 31 - 1);
  await jest.advanceTimersByTimeAsync(10);
  expect(turns).toBe(before);
});
