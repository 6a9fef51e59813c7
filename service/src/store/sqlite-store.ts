// The embedded SQLite implementation of the Store interface: one file, WAL mode, statements prepared once.
import { createAccountsStore } from './accounts';
import { createApiTokensStore } from './api-tokens';
import { openDatabase } from './database';
import { createDeliveriesStore } from './deliveries';
import { createDeliveryLogStore } from './delivery-log';
import { createEventsStore } from './events';
import type { Store } from './store';
import { createSubscriptionsStore } from './subscriptions';

export function createSqliteStore(path: string): Store {
  const db = openDatabase(path);
  const ping = db.prepare('SELECT 1');
  return {
    accounts: createAccountsStore(db),
    apiTokens: createApiTokensStore(db),
    subscriptions: createSubscriptionsStore(db),
    events: createEventsStore(db),
    deliveries: createDeliveriesStore(db),
    deliveryLog: createDeliveryLogStore(db),
    ping: async () => {
      ping.get();
    },
    close: async () => {
      if (db.open) db.close();
    },
  };
}
