// jest globalTeardown of the postgres project: stops the cluster globalSetup started.
import type { TestCluster } from './postgres';

export default function globalTeardown(): void {
  (globalThis as { jobhooksTestCluster?: TestCluster }).jobhooksTestCluster?.stop();
}
