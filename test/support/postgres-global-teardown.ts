// jest globalTeardown of the postgres project: stops the cluster globalSetup started.
import type { TestCluster } from './postgres';

export default function globalTeardown(): void {
  // Both PostgreSQL projects name this file: the first to end stops the cluster, the second finds none.
  const holder = globalThis as { jobhooksTestCluster?: TestCluster };
  holder.jobhooksTestCluster?.stop();
  delete holder.jobhooksTestCluster;
}
