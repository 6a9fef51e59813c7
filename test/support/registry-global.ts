// jest globalSetup of the packages project: the npm registry of test/support/registry.ts, every workspace
// published to it; the one `.ci/run` started when it names one, else one of this run's own.
import { publishWorkspaces, REGISTRY_ENV, type RunningRegistry, startRegistry } from './registry';

export default async function globalSetup(): Promise<void> {
  let url = process.env[REGISTRY_ENV];
  if (!url) {
    const registry = await startRegistry();
    (globalThis as { jobhooksTestRegistry?: RunningRegistry }).jobhooksTestRegistry = registry;
    url = registry.url;
    process.env[REGISTRY_ENV] = url;
  }
  await publishWorkspaces(url);
}
