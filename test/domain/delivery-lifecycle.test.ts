// The delivery state machine as plain data: the moves the service code asks it for.
import {
  afterRedelivery,
  afterScheduledAttempt,
  canRedeliver,
  DELIVERY_TRANSITIONS,
  plannedState,
  skippedAtClaim,
} from '../../service/src/domain/delivery-lifecycle';
import type { DeliveryState } from '../../service/src/domain/delivery';

test('a new event is pending for an active webhook, skipped for an archived one, and none for an inactive one', () => {
  expect(plannedState({ active: true, archivedAt: null })).toBe('pending');
  expect(plannedState({ active: true, archivedAt: 1 })).toBe('skipped');
  expect(plannedState({ active: false, archivedAt: 1 })).toBe('skipped');
  expect(plannedState({ active: false, archivedAt: null })).toBeNull();
});

test('a claimed delivery of an archived or inactive webhook is skipped', () => {
  expect(skippedAtClaim({ active: true, archived: false })).toBe(false);
  expect(skippedAtClaim({ active: false, archived: false })).toBe(true);
  expect(skippedAtClaim({ active: true, archived: true })).toBe(true);
});

test("an attempt's next step moves the leased delivery: retried, succeeded or failed", () => {
  expect(afterScheduledAttempt({ kind: 'retry', dueAt: 42 })).toEqual({ state: 'pending', nextAttemptAt: 42 });
  expect(afterScheduledAttempt({ kind: 'succeeded' })).toEqual({ state: 'succeeded' });
  expect(afterScheduledAttempt({ kind: 'exhausted' })).toEqual({ state: 'failed' });
});

test("a person's redelivery: a success marks it succeeded, a failure leaves it; only a finished one", () => {
  expect(afterRedelivery(true)).toEqual({ state: 'succeeded' });
  expect(afterRedelivery(false)).toEqual({ state: 'unchanged' });
  const states: DeliveryState[] = ['pending', 'succeeded', 'failed', 'skipped'];
  expect(states.filter(canRedeliver)).toEqual(['succeeded', 'failed', 'skipped']);
});

test('every finished state is left only by a person', () => {
  const byPeople = new Set(['recovered', 'redelivered']);
  for (const [name, transition] of Object.entries(DELIVERY_TRANSITIONS)) {
    const leavesFinished = transition.from.some((stage) => ['succeeded', 'failed', 'skipped'].includes(stage));
    expect([name, leavesFinished]).toEqual([name, byPeople.has(name)]);
  }
});
