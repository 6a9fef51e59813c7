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
  // One write, ending with the database line, so a reader of stdout sees the whole message at once.
  const lines = [`jobhooks is listening on ${address}`, `API base URL (host_url for clients): ${address}/api`];
  if (firstToken !== null) {
    lines.push(
      'Created account 1 (enterprise plan) and an Account Admin API token. It is shown only this once:',
      `  ${firstToken}`,
      `Try: curl -H "Authorization: Token ${firstToken}" ${address}/api/v3/accounts/1/webhooks/subscriptions`,
    );
  }
  lines.push(`Database: ${config.databasePath}`);
  process.stdout.write(`${lines.join('\n')}\n`);

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
