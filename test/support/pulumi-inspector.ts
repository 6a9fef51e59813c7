// Pulumi's closure serializer opens an inspector session in the process that loads it and enables the V8
// debugger there, for good: every script loaded afterwards is reported to it, and a debugger pause in that
// process can abort it. A suite that serializes in-process closes the session when it ends, so the suites
// that run after it in the same jest worker run without a debugger attached.
import type { Session } from 'node:inspector';

/**
 * Disconnects the inspector session of the @pulumi/pulumi this suite loaded (asked for, the session is made first
 * if the suite serialized nothing, and is then closed all the same).
 */
export async function closePulumiInspector(): Promise<void> {
  const hooks = require('@pulumi/pulumi/runtime/closure/v8Hooks') as { getSessionAsync(): Promise<Session> };
  (await hooks.getSessionAsync()).disconnect();
}
