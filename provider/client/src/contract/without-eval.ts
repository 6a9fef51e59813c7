// Imported first by pages whose Content-Security-Policy has no 'unsafe-eval' (the service's own web UI), before
// any schema of the contract is made. Zod compiles a faster parser for each object schema with `new Function`,
// after probing, as the first one is made, whether it may: under such a policy the probe fails, as it should, yet
// the browser reports it as a violation (and sends it to any report endpoint). Jitless, zod parses without
// compiling and never probes.
import { z } from 'zod';

z.config({ jitless: true });
