// What the UI keeps between page loads: only in sessionStorage, so closing the tab forgets the token.
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';

const TOKEN_KEY = 'jobhooks.token';
const BANNER_KEY = 'jobhooks.archivedBannerDismissedFor';

export function savedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** Sign-out forgets everything this UI stored. */
export function forgetSession(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(BANNER_KEY);
}

/** One archiving of one webhook: archived again after a reactivation is a new one. */
function archivingKey(webhook: Pick<WebhookDetail, 'id' | 'archived_at'>): string {
  return `${webhook.id}@${webhook.archived_at ?? ''}`;
}

/**
 * The banner shows while any webhook is archived, unless it was dismissed when exactly these archivings
 * (or more) were already known: a webhook archived after the dismissal brings it back.
 */
export function archivedBannerVisible(
  archived: readonly Pick<WebhookDetail, 'id' | 'archived_at'>[],
  dismissedFor: ReadonlySet<string>,
): boolean {
  return archived.some((webhook) => !dismissedFor.has(archivingKey(webhook)));
}

export function dismissedArchivings(): Set<string> {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(BANNER_KEY) ?? '[]');
    return new Set(Array.isArray(stored) ? stored.filter((key): key is string => typeof key === 'string') : []);
  } catch {
    return new Set();
  }
}

export function dismissBannerFor(archived: readonly Pick<WebhookDetail, 'id' | 'archived_at'>[]): void {
  sessionStorage.setItem(BANNER_KEY, JSON.stringify(archived.map(archivingKey)));
}
