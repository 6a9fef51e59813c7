// Which due deliveries a claim takes: in turns across accounts and webhooks (the least busy first), oldest first
// within a webhook, never past what a webhook's endpoint is allowed, never more than the free room.
import {
  chooseClaims,
  type ClaimRoom,
  fullElsewhere,
  nextRateWake,
  saturatedWebhooks,
  unprovenWithoutShare,
} from '../../service/src/delivery/claim-choice';
import type { DueCandidate } from '../../service/src/domain/delivery';
import { UNKNOWN_ENDPOINT } from '../../service/src/domain/endpoint-health';

let nextId = 0;
/** A due delivery of `webhookId` (in account `accountId`) that came due at `dueAt`. */
const due = (webhookId: string, dueAt: number, accountId = 1, inFlightElsewhere = 0): DueCandidate => ({
  id: `d${(nextId += 1)}`,
  webhookId,
  accountId,
  dueAt,
  inFlightElsewhere,
  endpointHealth: UNKNOWN_ENDPOINT,
  endpointHealthRevision: 0,
  sendRate: null,
});

function room(overrides: Partial<ClaimRoom> = {}): ClaimRoom {
  return {
    now: 0,
    total: 100,
    unprovenTotal: 100,
    maxPerWebhook: 16,
    allowed: () => 16,
    standing: () => 'proven',
    inFlight: new Map(),
    inFlightByAccount: new Map(),
    ...overrides,
  };
}

const webhooksOf = (chosen: DueCandidate[]) => chosen.map((c) => c.webhookId);

test('within a webhook the oldest go first, and no more than the free room is taken', () => {
  const candidates = [due('a', 30), due('a', 10), due('a', 20), due('a', 40)];
  expect(chooseClaims(candidates, room({ total: 3 })).map((c) => c.dueAt)).toEqual([10, 20, 30]);
});

test("a webhook's backlog does not take the turn of another webhook: they alternate, the least busy first", () => {
  const backlog = Array.from({ length: 10 }, (_, i) => due('busy', i));
  const candidates = [...backlog, due('quiet', 100), due('other', 200)];
  expect(webhooksOf(chooseClaims(candidates, room({ total: 4 })))).toEqual(['busy', 'quiet', 'other', 'busy']);
});

test('requests already in flight count: a webhook with none goes before one with some', () => {
  const candidates = [due('slow', 1), due('slow', 2), due('fresh', 50)];
  const chosen = chooseClaims(candidates, room({ total: 1, inFlight: new Map([['slow', 3]]) }));
  expect(webhooksOf(chosen)).toEqual(['fresh']);
});

test('accounts take turns too: an account with many webhooks does not crowd out one with a single webhook', () => {
  const crowded = Array.from({ length: 6 }, (_, i) => due(`big-${i}`, i, 1));
  const candidates = [...crowded, due('small', 100, 2)];
  expect(webhooksOf(chooseClaims(candidates, room({ total: 2 })))).toEqual(['big-0', 'small']);
});

test("a webhook never gets more than its endpoint's health allows, counting what it has in flight", () => {
  const candidates = [due('sick', 1), due('sick', 2), due('sick', 3), due('well', 4), due('well', 5)];
  const chosen = chooseClaims(
    candidates,
    room({ allowed: (id) => (id === 'sick' ? 2 : 16), inFlight: new Map([['sick', 1]]) }),
  );
  expect(webhooksOf(chosen).sort()).toEqual(['sick', 'well', 'well']);
});

test("other instances' requests in flight count against the allowance and the turn, as this process's own do", () => {
  const elsewhere = (webhookId: string, dueAt: number, n: number) => due(webhookId, dueAt, 1, n);
  const candidates = [elsewhere('shared', 1, 3), elsewhere('shared', 2, 3), elsewhere('shared', 3, 3), due('other', 9)];
  const chosen = chooseClaims(candidates, room({ allowed: () => 4, inFlight: new Map([['shared', 0]]) }));
  // 3 in flight elsewhere of the 4 allowed: one more, the oldest; and 'other', with none in flight, goes first.
  expect(chosen.map((c) => [c.webhookId, c.dueAt])).toEqual([
    ['other', 9],
    ['shared', 1],
  ]);
  expect(chooseClaims([elsewhere('full', 1, 4)], room({ allowed: () => 4 }))).toEqual([]);
});

test('webhooks at their allowance are left out of the claim query', () => {
  const full = room({
    allowed: (id) => (id === 'b' ? 1 : 2),
    inFlight: new Map([
      ['a', 2],
      ['b', 1],
      ['c', 1],
    ]),
  });
  expect(saturatedWebhooks(full).sort()).toEqual(['a', 'b']);
});

test("webhooks that other instances' requests alone fill are named for the next claims, not those shared with this process", () => {
  const candidates = [
    due('full-elsewhere', 1, 1, 2),
    due('full-elsewhere', 2, 1, 2),
    due('full-together', 3, 1, 1),
    due('room-left', 4, 1, 1),
    due('own-only', 5, 1, 0),
  ];
  const current = room({
    allowed: () => 2,
    inFlight: new Map([
      ['full-together', 1],
      ['own-only', 2],
    ]),
  });
  expect(fullElsewhere(candidates, current)).toEqual(['full-elsewhere']);
  expect(fullElsewhere([due('alone', 1)], room({ allowed: () => 0 }))).toEqual([]);
});

test('endpoints that answered healthily go before those not heard from, and those before sick ones', () => {
  const standings: Record<string, 'proven' | 'unknown' | 'sick'> = { hung: 'sick', fresh: 'unknown', good: 'proven' };
  const candidates = [due('hung', 1), due('fresh', 2), due('good', 3)];
  const chosen = chooseClaims(candidates, room({ total: 2, standing: (id) => standings[id]! }));
  expect(webhooksOf(chosen)).toEqual(['good', 'fresh']);
});

test('endpoints not proven healthy share only their part of the slots, however many of them are due', () => {
  const unknown = Array.from({ length: 10 }, (_, i) => due(`new-${i}`, i));
  const candidates = [...unknown, due('good', 100)];
  const chosen = chooseClaims(
    candidates,
    room({ total: 8, unprovenTotal: 3, standing: (id) => (id === 'good' ? 'proven' : 'unknown') }),
  );
  expect(webhooksOf(chosen)).toEqual(['good', 'new-0', 'new-1', 'new-2']);
});

test('unproven webhooks left without a slot, once their share is used, are named for the next claims', () => {
  const standings: Record<string, 'proven' | 'unknown' | 'sick'> = { good: 'proven', hung: 'sick' };
  const standing = (id: string) => standings[id] ?? 'unknown';
  const candidates = [due('new-0', 1), due('new-0', 2), due('new-1', 3), due('hung', 4), due('good', 5)];
  const shared = room({ total: 8, unprovenTotal: 1, standing });
  const chosen = chooseClaims(candidates, shared);
  expect(webhooksOf(chosen)).toEqual(['good', 'new-0']);
  // 'new-0' got its request; the others got none only because the share is used: named, each once.
  expect(unprovenWithoutShare(candidates, chosen, shared)).toEqual(['new-1', 'hung']);
  // With the share not used up, each unproven webhook got what its own allowance let it have: nothing to name.
  const roomy = room({ total: 8, unprovenTotal: 3, standing, allowed: () => 1 });
  expect(unprovenWithoutShare(candidates, chooseClaims(candidates, roomy), roomy)).toEqual([]);
  // A share used up before this claim names every unproven candidate.
  const none = room({ total: 8, unprovenTotal: 0, standing });
  expect(unprovenWithoutShare(candidates, chooseClaims(candidates, none), none)).toEqual(['new-0', 'new-1', 'hung']);
});

test('no room, no claim', () => {
  expect(chooseClaims([due('a', 1)], room({ total: 0 }))).toEqual([]);
});

describe("a webhook's delivery rate", () => {
  const limited = (dueAt: number, nextAt: number | null) => ({
    ...due('limited', dueAt),
    sendRate: { perSecond: 5, nextAt },
  });

  test('takes one delivery per claim once its next start has come; its start, not the claim, wakes the next', () => {
    const candidates = [limited(1, null), limited(2, null), limited(3, null), due('free', 4), due('free', 5)];
    const chosen = chooseClaims(candidates, room({ now: 1_000 }));
    expect(webhooksOf(chosen).sort()).toEqual(['free', 'free', 'limited']);
    expect(nextRateWake(candidates, 1_000)).toBeNull();
  });

  test('while held, takes nothing and leaves the room to others; the wake is its next start', () => {
    const candidates = [limited(1, 5_000), due('free', 2)];
    const chosen = chooseClaims(candidates, room({ now: 1_000, total: 1 }));
    expect(webhooksOf(chosen)).toEqual(['free']);
    expect(nextRateWake(candidates, 1_000)).toBe(5_000);
  });

  test('without a rate-limited webhook there is nothing to wake for', () => {
    expect(nextRateWake([due('free', 1), due('free', 2)], 0)).toBeNull();
  });
});
