// Which due deliveries a dispatcher takes when there is room for fewer than are due: in turns across accounts,
// and within an account across its webhooks, the least busy first; within a webhook, the oldest first. A
// webhook never gets more than its endpoint's health allows (endpoint-health.ts), so a backlog or a slow or
// hung endpoint cannot take the turn of others.
import type { DueCandidate } from '../domain/delivery';

export interface ClaimRoom {
  /** Free request slots in total. */
  total: number;
  /** The most requests any webhook may have in flight: how many due deliveries of each a claim reads. */
  maxPerWebhook: number;
  /** Requests a webhook may have in flight now, by its endpoint's health. */
  allowed: (webhookId: string) => number;
  /** Webhooks that may have nothing in flight now (their circuit is open). */
  blocked: readonly string[];
  /** Requests in flight now, by webhook id. */
  inFlight: ReadonlyMap<string, number>;
  /** Requests in flight now, by account id. */
  inFlightByAccount: ReadonlyMap<number, number>;
}

interface Ranked {
  candidate: DueCandidate;
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

/** Each webhook's oldest candidates that fit its room, with the load each would bring it to. */
function rankWithinWebhooks(candidates: readonly DueCandidate[], room: ClaimRoom): Ranked[] {
  const ranked: Ranked[] = [];
  for (const [webhookId, due] of groupBy(candidates, (c) => c.webhookId)) {
    const busy = room.inFlight.get(webhookId) ?? 0;
    const fits = Math.max(0, room.allowed(webhookId) - busy);
    due.sort(byAge);
    due
      .slice(0, fits)
      .forEach((candidate, rank) => ranked.push({ candidate, webhookLoad: busy + rank, accountLoad: 0 }));
  }
  return ranked;
}

/** Within each account, its webhooks take turns (the least busy first): the load each candidate brings it to. */
function rankWithinAccounts(ranked: Ranked[], room: ClaimRoom): void {
  for (const [accountId, own] of groupBy(ranked, (r) => r.candidate.accountId)) {
    const busy = room.inFlightByAccount.get(accountId) ?? 0;
    own.sort((a, b) => a.webhookLoad - b.webhookLoad || byAge(a.candidate, b.candidate));
    own.forEach((entry, position) => {
      entry.accountLoad = busy + position;
    });
  }
}

export function chooseClaims(candidates: readonly DueCandidate[], room: ClaimRoom): DueCandidate[] {
  if (room.total <= 0) return [];
  const ranked = rankWithinWebhooks(candidates, room);
  rankWithinAccounts(ranked, room);
  ranked.sort(
    (a, b) => a.accountLoad - b.accountLoad || a.webhookLoad - b.webhookLoad || byAge(a.candidate, b.candidate),
  );
  return ranked.slice(0, room.total).map((entry) => entry.candidate);
}

/** Webhooks with no room left, or whose circuit is open: the claim query leaves their deliveries alone. */
export function saturatedWebhooks(room: ClaimRoom): string[] {
  const full = [...room.inFlight].filter(([id, count]) => count >= room.allowed(id)).map(([id]) => id);
  return [...new Set([...full, ...room.blocked])];
}
