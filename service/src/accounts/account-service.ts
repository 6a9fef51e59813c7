// Accounts and API tokens: creation for operators, authentication for every API request.
import type { PermissionSet, Plan } from '@jobhooks/client/contract';
import { type Clock, nowMicros } from '../core/clock';
import { ConflictError, NotFoundError, UnauthenticatedError } from '../core/errors';
import type { IdGenerator } from '../core/ids';
import type { RandomBytes } from '../core/random';
import { generateApiToken, hashApiToken, tokenFromAuthorization } from '../security/api-tokens';
import type { AccountRecord, ApiTokenRecord } from '../domain/account';
import type { Store } from '../store/store';
import type { Principal } from './access';

export interface AccountServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  random: RandomBytes;
}

export type AccountService = ReturnType<typeof createAccountService>;

export function createAccountService({ store, clock, ids, random }: AccountServiceDeps) {
  async function createAccount(input: { id: number; name?: string; plan?: Plan }): Promise<AccountRecord> {
    if (await store.accounts.get(input.id)) throw new ConflictError(`Account ${input.id} already exists.`);
    const account: AccountRecord = {
      id: input.id,
      identifier: ids.next('account'),
      name: input.name ?? `Account ${input.id}`,
      plan: input.plan ?? 'enterprise',
      createdAt: nowMicros(clock),
    };
    await store.accounts.insert(account);
    return account;
  }

  async function storeToken(
    accountId: number,
    permissionSet: PermissionSet,
    name: string,
    token: string,
  ): Promise<ApiTokenRecord> {
    const record: ApiTokenRecord = {
      id: ids.next('token'),
      accountId,
      name,
      permissionSet,
      createdAt: nowMicros(clock),
      revokedAt: null,
    };
    await store.apiTokens.insert(record, hashApiToken(token));
    return record;
  }

  /** Creates a token and returns it in clear: the only time it is ever available. */
  async function createToken(input: { accountId: number; permissionSet: PermissionSet; name?: string }) {
    if (!(await store.accounts.get(input.accountId))) throw new NotFoundError(`No account with id ${input.accountId}.`);
    const token = generateApiToken(random);
    const record = await storeToken(input.accountId, input.permissionSet, input.name ?? input.permissionSet, token);
    return { token, record };
  }

  /**
   * Makes sure `accountId` exists and `token` is one of its Account Admin tokens. Used for
   * JOBHOOKS_BOOTSTRAP_*, so scripts and CI start with a token they already know.
   */
  async function ensureBootstrapToken(accountId: number, token: string): Promise<void> {
    if (!(await store.accounts.get(accountId))) await createAccount({ id: accountId });
    const existing = await store.apiTokens.findActiveByHash(hashApiToken(token));
    if (existing && existing.account.id !== accountId) {
      throw new ConflictError(`JOBHOOKS_BOOTSTRAP_TOKEN already belongs to account ${existing.account.id}.`);
    }
    if (!existing) await storeToken(accountId, 'Account Admin', 'bootstrap', token);
  }

  async function authenticate(authorization: string | undefined): Promise<Principal> {
    const token = tokenFromAuthorization(authorization);
    if (token === null) {
      throw new UnauthenticatedError('Authentication required: send "Authorization: Token <api token>" (or Bearer).');
    }
    const found = await store.apiTokens.findActiveByHash(hashApiToken(token));
    if (!found) throw new UnauthenticatedError('The API token is invalid or has been revoked.');
    return found;
  }

  return {
    createAccount,
    createToken,
    ensureBootstrapToken,
    authenticate,
    listAccounts: () => store.accounts.list(),
    countAccounts: () => store.accounts.count(),
    listTokens: (accountId: number) => store.apiTokens.listForAccount(accountId),
    revokeToken: (tokenId: string) => store.apiTokens.revoke(tokenId, nowMicros(clock)),
  };
}
