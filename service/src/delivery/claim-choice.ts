// Which due deliveries a dispatcher takes when there is room for fewer than are due: in turns across accounts,
// and within an account across its webhooks, the least busy first and, among equals, endpoints that answered
// healthily before those not heard from, and those before sick ones; within a webhook, the oldest first. A
// webhook never gets more than its endpoint's health allows (endpoint-health.ts), counting its requests in
// flight on every instance, and a rate-limited webhook one delivery per claim once its next start has come
// (domain/send-rate.ts; the start itself keeps the rate: start-slots.ts), and endpoints not proven healthy share
// only part of the slots, so a backlog, or slow, hung or new endpoints, cannot take the turn of others. A webhook
// held back by its rate takes no slot: the others' turns go on.
import type { Micros } from '../core/time';
import type { DueCandidate } from '../domain/delivery';
import { rateWakeAt, startsAllowed } from '../domain/send-rate';
import type { Standing } from './endpoint-health';

export interface ClaimRoom {
  /** The time of the claim: a webhook's delivery rate depends on it. */
  now: Micros;
  /** Free request slots in total. */
  total: number;
  /** Free slots for requests to endpoints not proven healthy (not heard from, or sick). */
  unprovenTotal: number;
  /** The most requests any webhook may have in flight: how many due deliveries of each a claim reads. */
  maxPerWebhook: number;
  /** Requests a webhook may have in flight now, by its endpoint's health. */
  allowed: (webhookId: string) => number;
  /** Where a webhook's endpoint stands: proven healthy, not heard from, or sick. */
  standing: (webhookId: string) => Standing;
  /** Requests in flight now, by webhook id. */
  inFlight: ReadonlyMap<string, number>;
  /** Requests in flight now, by account id. */
  inFlightByAccount: ReadonlyMap<number, number>;
}

const STANDING_ORDER: Record<Standing, number> = { proven: 0, unknown: 1, sick: 2 };

interface Ranked {
  candidate: DueCandidate;
  /** STANDING_ORDER of its endpoint. */
  standing: number;
  /** The webhook's requests in flight once this one is sent. */
  webhookLoad: number;
  /** The account's requests in flight once this one is sent, taking its webhooks in turn. */
  accountLoad: number;
}

function groupBy<K, T>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group === undefined) groups.set(key(item), [item]);
    else group.push(item);
  }
  return groups;
}

const byAge = (a: DueCandidate, b: DueCandidate) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1);
// Round by round (each webhook's first request, then each one's second...), proven endpoints first within a
// round: so a sick or new endpoint waits at most for one request of each proven webhook, never for all of them.
const byTurn = (a: Ranked, b: Ranked) =>
  a.webhookLoad - b.webhookLoad || a.standing - b.standing || byAge(a.candidate, b.candidate);

/** Each webhook's oldest candidates that fit its room, with the load each would bring it to. */
function rankWithinWebhooks(candidates: readonly DueCandidate[], room: ClaimRoom): Ranked[] {
  const ranked: Ranked[] = [];
  for (const [webhookId, due] of groupBy(candidates, (c) => c.webhookId)) {
    // Other instances' requests to the webhook count too: its limit holds for the cluster, not per instance.
    const busy = (room.inFlight.get(webhookId) ?? 0) + due[0]!.inFlightElsewhere;
    const fits = Math.min(Math.max(0, room.allowed(webhookId) - busy), startsAllowed(due[0]!.sendRate, room.now));
    const standing = STANDING_ORDER[room.standing(webhookId)];
    due.sort(byAge);
    due.slice(0, fits).forEach((candidate, rank) => {
      ranked.push({ candidate, standing, webhookLoad: busy + rank, accountLoad: 0 });
    });
  }
  return ranked;
}

/** Within each account, its webhooks take turns: the load on the account each candidate brings it to. */
function rankWithinAccounts(ranked: Ranked[], room: ClaimRoom): void {
  for (const [accountId, own] of groupBy(ranked, (r) => r.candidate.accountId)) {
    const busy = room.inFlightByAccount.get(accountId) ?? 0;
    own.sort(byTurn);
    own.forEach((entry, position) => {
      entry.accountLoad = busy + position;
    });
  }
}

export function chooseClaims(candidates: readonly DueCandidate[], room: ClaimRoom): DueCandidate[] {
  const ranked = rankWithinWebhooks(candidates, room);
  rankWithinAccounts(ranked, room);
  ranked.sort((a, b) => a.accountLoad - b.accountLoad || byTurn(a, b));
  const chosen: DueCandidate[] = [];
  let unprovenLeft = room.unprovenTotal;
  for (const entry of ranked) {
    if (chosen.length >= room.total) break;
    if (entry.standing !== STANDING_ORDER.proven) {
      if (unprovenLeft <= 0) continue;
      unprovenLeft -= 1;
    }
    chosen.push(entry.candidate);
  }
  return chosen;
}

/**
 * Webhooks with no room left: the claim leaves their deliveries alone. (One whose circuit is open the store itself
 * passes over, by the health it keeps.)
 */
export function saturatedWebhooks(room: ClaimRoom): string[] {
  return [...room.inFlight].filter(([id, count]) => count >= room.allowed(id)).map(([id]) => id);
}

/**
 * Webhooks among `candidates` that other instances' requests alone fill (only several instances on one database
 * have any). A claim on PostgreSQL looks at a bounded number of webhooks, those with the oldest due deliveries; when
 * it looked at all it may, the dispatcher leaves these out of its next claims for a while, so they cannot fill that
 * number and keep it from webhooks whose deliveries it could send. A webhook this process also has requests in
 * flight to is not one of them: once those end, it may take its share again at once.
 */
export function fullElsewhere(candidates: readonly DueCandidate[], room: ClaimRoom): string[] {
  const full = new Set<string>();
  for (const { webhookId, inFlightElsewhere } of candidates) {
    if (inFlightElsewhere === 0 || room.inFlight.has(webhookId)) continue;
    if (inFlightElsewhere >= room.allowed(webhookId)) full.add(webhookId);
  }
  return [...full];
}

/**
 * Webhooks among `candidates` whose endpoints are not proven healthy and that got nothing from `chosen` because
 * requests to such endpoints hold every slot they may share: a claim gives them nothing until some of those end
 * (an attempt lasts up to its 10 s limit). On PostgreSQL, which looks at a bounded number of webhooks, those
 * with the oldest due deliveries, hundreds of new or hung endpoints would otherwise fill that number, claim after
 * claim, and keep the slots kept for proven endpoints from the proven webhooks behind them.
 */
export function unprovenWithoutShare(
  candidates: readonly DueCandidate[],
  chosen: readonly DueCandidate[],
  room: ClaimRoom,
): string[] {
  const unproven = (webhookId: string) => room.standing(webhookId) !== 'proven';
  const taken = chosen.filter((c) => unproven(c.webhookId));
  if (taken.length < room.unprovenTotal) return [];
  const served = new Set(taken.map((c) => c.webhookId));
  const left = new Set<string>();
  for (const { webhookId } of candidates) if (unproven(webhookId) && !served.has(webhookId)) left.add(webhookId);
  return [...left];
}

/**
 * When to look again for deliveries a claim left because of their webhook's rate: the earliest next start among
 * the rate-limited webhooks it held back; null when there is none. (A webhook it leased one for wakes the dispatcher
 * itself once that delivery takes its start slot: start-slots.ts.)
 */
export function nextRateWake(candidates: readonly DueCandidate[], now: Micros): Micros | null {
  let earliest: Micros | null = null;
  for (const { sendRate } of candidates) {
    const at = rateWakeAt(sendRate, now);
    if (at !== null && (earliest === null || at < earliest)) earliest = at;
  }
  return earliest;
}
