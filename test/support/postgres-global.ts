// jest globalSetup of the postgres project: one PostgreSQL cluster for the whole run (test/support/postgres.ts).
import { CLUSTER_ENV, startTestCluster } from './postgres';

export default function globalSetup(): void {
  // Both PostgreSQL projects name this file: the second one to start reuses the cluster.
  if ((globalThis as { jobhooksTestCluster?: unknown }).jobhooksTestCluster !== undefined) return;
  const cluster = startTestCluster();
  process.env[CLUSTER_ENV] = cluster.socketDir;
  (globalThis as { jobhooksTestCluster?: typeof cluster }).jobhooksTestCluster = cluster;
}
