// The PostgreSQL implementation of the Store interface: several jobhooks instances on one database. Each
// instance holds a pool of connections plus one LISTEN connection (notifications.ts), through which the others
// tell it of changes to what it keeps in memory and of deliveries queued.
import { microsFromMillis } from '../../core/time';
import type { Store } from '../store';
import { createPgAccountsStore } from './accounts';
import { createPgApiTokensStore } from './api-tokens';
import { createPgClusterStore } from './cluster';
import { openPool, type PostgresOptions } from './database';
import { createPgDeliveriesStore } from './deliveries';
import { createPgDeliveryLogStore } from './delivery-log';
import { createPgEndpointHealthStore } from './endpoint-health';
import { createPgEventsStore } from './events';
import { migratePostgres } from './migrate';
import { listenForNotifications } from './notifications';
import { createPgRateWindowsStore } from './rate-windows';
import { createPgReadinessProbe } from './readiness-probe';
import { createPgSecretKeysStore } from './secret-keys';
import { createPgSignInWindowsStore } from './sign-in-windows';
import { createPgWebhooksStore } from './webhooks';

export interface PostgresStoreOptions extends PostgresOptions {
  /** A failure away from any request (an idle connection broke, LISTEN was lost): logged, never thrown. */
  onBackgroundError: (error: unknown, what: string) => void;
}

export async function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const db = openPool(options, (error) => options.onBackgroundError(error, 'idle database connection'));
  try {
    await migratePostgres(db);
    const notifications = await listenForNotifications(options.url, (error) =>
      options.onBackgroundError(error, 'LISTEN connection'),
    );
    const probeReadiness = createPgReadinessProbe(db, () => microsFromMillis(Date.now()));
    return {
      backend: 'postgres',
      accounts: createPgAccountsStore(db),
      apiTokens: createPgApiTokensStore(db, notifications),
      webhooks: createPgWebhooksStore(db),
      events: createPgEventsStore(db),
      deliveries: createPgDeliveriesStore(db),
      deliveryLog: createPgDeliveryLogStore(db),
      secretKeys: createPgSecretKeysStore(db, notifications),
      cluster: createPgClusterStore(db, notifications),
      rateWindows: createPgRateWindowsStore(db),
      signInWindows: createPgSignInWindowsStore(db, notifications, (error) =>
        options.onBackgroundError(error, 'reading the blocked sign-in addresses'),
      ),
      endpointHealth: createPgEndpointHealthStore(db),
      checkReadiness: probeReadiness,
      close: async () => {
        await notifications.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
