// When the dispatcher looks for work and how much it may start: wake-ups coalesced per event-loop turn, a poll
// when nothing wakes it, request slots (in all and per webhook), and a graceful stop. It knows nothing of
// deliveries: each turn asks `turn` to claim and launch work, and every launched task holds a slot until its
// request is over.
import type { Micros, Millis } from '../core/time';
import { createTurnBatch } from '../core/turn-batch';
import type { ClaimRoom } from './claim-choice';
import type { Standing } from './endpoint-health';

export interface SchedulerLimits {
  /** Requests in flight at once, over all webhooks. */
  maxInFlight: number;
  /** Requests in flight at once to one webhook. */
  maxInFlightPerWebhook: number;
  /** How often to look for work when nothing wakes the scheduler. */
  pollIntervalMs: Millis;
  /**
   * Each poll waits pollIntervalMs, give or take this fraction of it, chosen at random: instances that share a
   * database then do not all poll at the same moments. 0 (the default) for exact polls.
   */
  pollJitter?: number;
}

/**
 * How many requests each webhook may have in flight now, and where its endpoint stands (endpoint-health.ts);
 * without one, every webhook may have its maximum and counts as proven.
 */
export interface Capacity {
  /** `now`: the time of the claim, read once for all of its webhooks. */
  allowed(webhookId: string, now: Micros): number;
  standing(webhookId: string): Standing;
}

/**
 * Requests to endpoints not proven healthy (not heard from yet, or sick) may hold at most this share of the
 * slots: an eighth (32 of 256) stays free for endpoints that answered healthily, however many hung endpoints
 * appear at once. Not more: every new endpoint is unproven, and two hundred new webhooks at once must all get
 * their first request without waiting for a slot.
 */
export const UNPROVEN_SHARE = 7 / 8;

/**
 * Tasks alive (their request out, or over with its result not yet written) may number at most the request slots
 * and this many times the slots again; past that, claims wait. A task frees its request slot when the endpoint answers, not when the result is
 * written, so that the endpoint gets its next request meanwhile; without a bound, a results write held up (a lock
 * left by another session, a slow database) while claims go on would let results pile up until their leases run
 * out, and the deliveries would be claimed and sent again.
 */
export const UNRECORDED_PER_SLOT = 1;

/** Whose request a slot holds. */
export interface SlotOwner {
  webhookId: string;
  accountId: number;
}

/** Frees a task's slot; called when its request is over (calling it again does nothing). */
export type EndRequest = () => void;

export interface Scheduler {
  start(): void;
  /** Asks for a turn; the wake-ups of one event-loop turn make one. */
  wake(): void;
  /**
   * Asks for a turn in `delayMs` (when a webhook's delivery rate lets its next request start, or a retry falls
   * due): one timer, kept for the earliest time asked, so a rate-limited backlog wakes the scheduler once per slot,
   * never in a loop. A later time asked meanwhile is left to the poll.
   */
  wakeAfter(delayMs: Millis): void;
  /** The room the next claim may fill, at `now` (the claim's time; an open circuit's end depends on it). */
  room(now: Micros): ClaimRoom;
  /**
   * Runs `task` in a slot of `owner`'s. The task calls `endRequest` once its request is over (its result may
   * still be on its way to the database); the slot is freed when the task settles at the latest.
   */
  launch(owner: SlotOwner, task: (endRequest: EndRequest) => Promise<void>): void;
  /** Requests in flight now. */
  inFlight(): number;
  /** Stops turns and polls, then waits up to `graceMs` for the launched tasks. */
  stop(graceMs: Millis): Promise<void>;
}

/** The longest delay setTimeout takes (a signed 32-bit count of milliseconds). */
const LONGEST_TIMER_MS: Millis = 2 ** 31 - 1;

export function createScheduler(
  limits: SchedulerLimits,
  turn: () => Promise<void>,
  onError: (error: unknown) => void,
  capacity: Capacity = { allowed: () => limits.maxInFlightPerWebhook, standing: () => 'proven' },
  /** A uniform number in [0, 1) for the poll's jitter. */
  fraction: () => number = () => 0.5,
): Scheduler {
  const slots = createSlots(limits, capacity);
  const tasks = new Set<Promise<void>>();
  /** Set when the room was held back by unwritten results: a task that settles then wakes the scheduler. */
  let heldByResults = false;
  let started = false;
  let stopping = false;
  /** The turn running now; a wake-up during it asks for one more after it. */
  let running: Promise<void> | null = null;
  let again = false;
  let pollTimer: NodeJS.Timeout | null = null;
  let slotTimer: NodeJS.Timeout | null = null;
  /** When slotTimer fires, by performance.now(). */
  let slotTimerAt = 0;
  const wakeUps = createTurnBatch<void>(() => runTurn());

  function wake(): void {
    if (started && !stopping) wakeUps.add();
  }

  function runTurn(): void {
    if (stopping) return;
    if (running !== null) {
      again = true;
      return;
    }
    running = turn()
      .catch(onError)
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          wake();
        } else {
          schedulePoll();
        }
      });
  }

  function schedulePoll(): void {
    if (pollTimer !== null || stopping) return;
    const jitter = limits.pollJitter ?? 0;
    const delayMs = limits.pollIntervalMs * (1 - jitter + 2 * jitter * fraction());
    pollTimer = setTimeout(() => {
      pollTimer = null;
      wake();
    }, delayMs);
    pollTimer.unref();
  }

  function wakeAfter(delayMs: Millis): void {
    // Past setTimeout's longest wait (about 24.8 days) it would fire at once: the poll finds that work then.
    if (!started || stopping || delayMs > LONGEST_TIMER_MS) return;
    const at = performance.now() + delayMs;
    if (slotTimer !== null) {
      if (slotTimerAt <= at) return;
      clearTimeout(slotTimer);
    }
    slotTimerAt = at;
    slotTimer = setTimeout(() => {
      slotTimer = null;
      wake();
    }, delayMs);
    slotTimer.unref();
  }

  function launch(owner: SlotOwner, task: (endRequest: EndRequest) => Promise<void>): void {
    const release = slots.take(owner);
    // Every freed slot may take the next request: it wakes the scheduler.
    const endRequest = () => {
      if (release()) wake();
    };
    const launched: Promise<void> = task(endRequest)
      .catch(onError)
      .finally(() => {
        tasks.delete(launched);
        endRequest();
        if (heldByResults) {
          heldByResults = false;
          wake();
        }
      });
    tasks.add(launched);
  }

  async function stop(graceMs: Millis): Promise<void> {
    stopping = true;
    if (pollTimer !== null) clearTimeout(pollTimer);
    if (slotTimer !== null) clearTimeout(slotTimer);
    pollTimer = null;
    slotTimer = null;
    await running;
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      graceTimer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.allSettled([...tasks]), grace]);
    clearTimeout(graceTimer);
  }

  return {
    start() {
      started = true;
      wake();
    },
    wake,
    wakeAfter,
    room(now) {
      const room = slots.room(now);
      // Tasks alive, in flight or waiting for their results to be written, are bounded (UNRECORDED_PER_SLOT).
      const total = Math.min(room.total, limits.maxInFlight * (1 + UNRECORDED_PER_SLOT) - tasks.size);
      if (total >= room.total) return room;
      heldByResults = true;
      return { ...room, total: Math.max(0, total) };
    },
    launch,
    inFlight: slots.inFlight,
    stop,
  };
}

/** Request slots: how many are taken, in all, per webhook and per account. */
function createSlots(limits: SchedulerLimits, capacity: Capacity) {
  let taken = 0;
  /** Slots taken by requests to endpoints that were not proven healthy when the request was launched. */
  let unprovenTaken = 0;
  const unprovenMax = Math.max(1, Math.floor(limits.maxInFlight * UNPROVEN_SHARE));
  const byWebhook = new Map<string, number>();
  const byAccount = new Map<number, number>();

  function count<K>(counts: Map<K, number>, key: K, delta: number): void {
    const next = (counts.get(key) ?? 0) + delta;
    if (next <= 0) counts.delete(key);
    else counts.set(key, next);
  }

  return {
    room: (now: Micros): ClaimRoom => ({
      now,
      total: limits.maxInFlight - taken,
      unprovenTotal: unprovenMax - unprovenTaken,
      maxPerWebhook: limits.maxInFlightPerWebhook,
      allowed: (webhookId) => Math.min(limits.maxInFlightPerWebhook, capacity.allowed(webhookId, now)),
      standing: (webhookId) => capacity.standing(webhookId),
      inFlight: byWebhook,
      inFlightByAccount: byAccount,
    }),
    inFlight: () => taken,
    /** Takes a slot; the function it returns frees it once and answers whether this call freed it. */
    take(owner: SlotOwner): () => boolean {
      const unproven = capacity.standing(owner.webhookId) !== 'proven' ? 1 : 0;
      taken += 1;
      unprovenTaken += unproven;
      count(byWebhook, owner.webhookId, 1);
      count(byAccount, owner.accountId, 1);
      let held = true;
      return () => {
        if (!held) return false;
        held = false;
        taken -= 1;
        unprovenTaken -= unproven;
        count(byWebhook, owner.webhookId, -1);
        count(byAccount, owner.accountId, -1);
        return true;
      };
    },
  };
}
