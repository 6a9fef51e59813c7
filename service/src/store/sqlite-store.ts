// The embedded SQLite implementation of the Store interface: one file, WAL mode, statements prepared once.
import { createAccountsStore } from './accounts';
import { createApiTokensStore } from './api-tokens';
import { openDatabase } from './database';
import type { Store } from './store';
import { createSubscriptionsStore } from './subscriptions';

export function createSqliteStore(path: string): Store {
  const db = openDatabase(path);
  const ping = db.prepare('SELECT 1');
  return {
    accounts: createAccountsStore(db),
    apiTokens: createApiTokensStore(db),
    subscriptions: createSubscriptionsStore(db),
    ping: async () => {
      ping.get();
    },
    close: async () => {
      if (db.open) db.close();
    },
  };
}
