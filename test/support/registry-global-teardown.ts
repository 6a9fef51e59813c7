// jest globalTeardown of the packages project: stops the registry globalSetup started (not one `.ci/run` named).
import type { RunningRegistry } from './registry';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { jobhooksTestRegistry?: RunningRegistry }).jobhooksTestRegistry?.stop();
}
