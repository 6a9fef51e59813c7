// Who may do what (docs/decisions.md#15-who-may-do-what), as pure rules over the authenticated principal.
import {
  INGEST_PERMISSION_SETS,
  type PermissionSet,
  WEBHOOK_PLANS,
  WRITE_PERMISSION_SETS,
} from '@jobhooks/client/contract';
import { ForbiddenError, NotFoundError } from '../core/errors';
import type { AccountRecord, ApiTokenRecord } from '../domain/account';

export interface Principal {
  token: ApiTokenRecord;
  account: AccountRecord;
}

/** read: list, get, deliveries. write: create, update, delete, test. ingest: post job-run events. */
export type AccessLevel = 'read' | 'write' | 'ingest' | 'account';

const ALLOWED: Record<Exclude<AccessLevel, 'read' | 'account'>, readonly PermissionSet[]> = {
  write: WRITE_PERMISSION_SETS,
  ingest: INGEST_PERMISSION_SETS,
};

/**
 * Throws unless the principal may act at `level` on the account named in the path. `account` is the
 * level of the v2 accounts list, which needs no account in the path and no webhook plan.
 */
export function authorize(principal: Principal, pathAccountId: string | undefined, level: AccessLevel): void {
  if (level === 'account') return;
  if (pathAccountId === undefined || !/^\d{1,15}$/.test(pathAccountId)) {
    throw new NotFoundError(`No account with id "${pathAccountId ?? ''}".`);
  }
  if (Number(pathAccountId) !== principal.account.id) {
    throw new ForbiddenError(
      `This token belongs to account ${principal.account.id} and cannot access account ${pathAccountId}.`,
    );
  }
  if (!WEBHOOK_PLANS.includes(principal.account.plan)) {
    throw new ForbiddenError(
      `Webhooks are available on the Starter and Enterprise plans; account ${principal.account.id} is on the ${principal.account.plan} plan.`,
    );
  }
  if (level === 'read') return;
  const allowed = ALLOWED[level];
  if (!allowed.includes(principal.token.permissionSet)) {
    throw new ForbiddenError(
      `The permission set "${principal.token.permissionSet}" cannot ${level === 'write' ? 'change webhooks' : 'post job-run events'}; ` +
        `it needs one of: ${allowed.join(', ')}.`,
    );
  }
}
