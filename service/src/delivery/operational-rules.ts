// Which archive rule a stored archive reason stands for, as webhook.archived names it (docs/operational-webhooks.md).
import type { ArchiveRule } from '@jobhooks/client/contract';
import { ARCHIVE_REASONS } from './archive-policy';

const RULE_OF_REASON: ReadonlyMap<string, ArchiveRule> = new Map([
  [ARCHIVE_REASONS.exhausted, 'failed_deliveries'],
  [ARCHIVE_REASONS.failingForDays, 'failing_days'],
  [ARCHIVE_REASONS.gone, 'gone'],
]);

/** Which rule archived a webhook, from the reason archive-policy.ts stored; null for a reason it never writes. */
export function archiveRuleOf(reason: string | null): ArchiveRule | null {
  return reason === null ? null : (RULE_OF_REASON.get(reason) ?? null);
}
