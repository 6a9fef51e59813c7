// Starts the service: reads the configuration, opens the store, listens, and shuts down cleanly on a signal.
import { loadConfig } from './config';
import { createService } from './wiring';

/** On a database with no account, make account 1 and an admin token, so a first `npm start` is usable. */
async function bootstrapFirstAccount(service: Awaited<ReturnType<typeof createService>>): Promise<string | null> {
  if ((await service.accounts.countAccounts()) > 0) return null;
  await service.accounts.createAccount({ id: 1, name: 'Account 1', plan: 'enterprise' });
  const { token } = await service.accounts.createToken({ accountId: 1, permissionSet: 'Account Admin', name: 'first admin' });
  return token;
}

export async function startServer(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  const service = await createService(config);
  const firstToken = await bootstrapFirstAccount(service);
  const address = await service.app.listen({ host: config.host, port: config.port });
  const out = process.stdout;
  out.write(`jobhooks is listening on ${address}\n`);
  out.write(`API base URL (host_url for clients): ${address}/api\n`);
  out.write(`Database: ${config.databasePath}\n`);
  if (firstToken !== null) {
    out.write(`Created account 1 (enterprise plan) and an Account Admin API token. It is shown only this once:\n`);
    out.write(`  ${firstToken}\n`);
    out.write(`Try: curl -H "Authorization: Token ${firstToken}" ${address}/api/v3/accounts/1/webhooks/subscriptions\n`);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, 'shutting down');
    service
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
