// The embedded SQLite implementation of the Store interface: one file, WAL mode, statements prepared once.
import { microsFromMillis } from '../../core/time';
import { createAccountsStore } from './accounts';
import { createApiTokensStore } from './api-tokens';
import { type Durability, openDatabase } from './database';
import { MIGRATIONS } from './migrations';
import { createDeliveriesStore } from './deliveries';
import { createDeliveryLogStore } from './delivery-log';
import { createEventsStore } from './events';
import { observeOtherConnections } from './other-connections';
import { createReadinessProbe } from './readiness-probe';
import { createSecretKeysStore } from './secret-keys';
import type { Store } from '../store';
import { createWebhooksStore } from './webhooks';
import { createInProcessEndpointHealth } from './endpoint-health';
import { createInProcessRateWindows, createInProcessSignInWindows } from './windows';

/**
 * `monotonicNow` times how long a look at other connections' commits serves (tests pass their own);
 * `durability` is when a commit reaches the disk (see openDatabase); `onBackgroundError` hears of a write that
 * failed away from any request (circuit events after their results' commit).
 */
export function createSqliteStore(
  path: string,
  monotonicNow?: () => number,
  durability: Durability = 'full',
  onBackgroundError: (error: unknown, what: string) => void = () => undefined,
): Store {
  const db = openDatabase(path, MIGRATIONS, durability);
  const probeReadiness = createReadinessProbe(db, () => microsFromMillis(Date.now()));
  // One look at other connections' commits serves both caches, so a request that authenticates and then
  // reads its webhook pays for it once.
  const otherConnections = observeOtherConnections(db, monotonicNow);
  const endpointHealth = createInProcessEndpointHealth(db, (error) =>
    onBackgroundError(error, 'Writing webhook.circuit_opened or webhook.recovered (those events are lost)'),
  );
  return {
    backend: 'sqlite',
    accounts: createAccountsStore(db),
    apiTokens: createApiTokensStore(db, otherConnections),
    webhooks: createWebhooksStore(db, endpointHealth, otherConnections),
    events: createEventsStore(db),
    deliveries: createDeliveriesStore(db, endpointHealth),
    deliveryLog: createDeliveryLogStore(db),
    secretKeys: createSecretKeysStore(db),
    // One service process per file (service-lock.ts): there is no other instance to wait for or to hear from.
    cluster: {
      whileLocked: (_name, task) => task(),
      latest: (_name, _nowMs, _maxAgeMs, task) => task(),
      onDeliveriesQueued: () => undefined,
    },
    rateWindows: createInProcessRateWindows(),
    signInWindows: createInProcessSignInWindows(),
    endpointHealth,
    checkReadiness: async () => {
      probeReadiness();
    },
    close: async () => {
      if (db.open) db.close();
    },
  };
}
