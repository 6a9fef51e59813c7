// Which due deliveries a dispatcher takes: the oldest first, but never more than an endpoint's share, so one
// slow endpoint cannot hold every concurrent request while others wait.
import type { DueCandidate } from '../domain/delivery';

export interface ClaimRoom {
  /** Free request slots in total. */
  total: number;
  /** The most requests one webhook may have in flight. */
  perWebhook: number;
  /** Requests in flight now, by webhook id. */
  inFlight: ReadonlyMap<string, number>;
}

export function chooseClaims(candidates: readonly DueCandidate[], room: ClaimRoom): DueCandidate[] {
  const taken = new Map<string, number>();
  const chosen: DueCandidate[] = [];
  for (const candidate of candidates) {
    if (chosen.length >= room.total) break;
    const busy = (room.inFlight.get(candidate.webhookId) ?? 0) + (taken.get(candidate.webhookId) ?? 0);
    if (busy >= room.perWebhook) continue;
    taken.set(candidate.webhookId, (taken.get(candidate.webhookId) ?? 0) + 1);
    chosen.push(candidate);
  }
  return chosen;
}

/** Webhooks with no room left: the claim query leaves their deliveries alone. */
export function saturatedWebhooks(room: ClaimRoom): string[] {
  return [...room.inFlight].filter(([, count]) => count >= room.perWebhook).map(([id]) => id);
}
