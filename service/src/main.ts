// Starts the service: reads the configuration, opens the store, listens, and shuts down cleanly on a signal.
import { type Config, loadConfig } from './config';
import { configurationWarnings } from './config-warnings';
import { createHeldLogStream } from './observability/held-log-stream';
import { claimDatabase } from './service-lock';
import {
  databaseStartupError,
  describePostgresUrl,
  listenStartupError,
  postgresStartupError,
  startupStep,
} from './startup-errors';
import { createService, type Service, SHUTDOWN_GRACE_MS } from './wiring';

/**
 * On a database with no account, make account 1 and an admin token, so a first `npm start` is usable. Instances
 * started at once on one PostgreSQL database take turns: the first makes them, the others then find an account.
 */
function bootstrapFirstAccount(service: Service): Promise<string | null> {
  return service.store.cluster.whileLocked('bootstrap', () => makeFirstAccount(service));
}

async function makeFirstAccount(service: Service): Promise<string | null> {
  if ((await service.accounts.countAccounts()) > 0) return null;
  await service.accounts.createAccount({ id: 1, name: 'Account 1', plan: 'enterprise' });
  const { token } = await service.accounts.createToken({
    accountId: 1,
    permissionSet: 'Account Admin',
    name: 'first admin',
  });
  return token;
}

export async function startServer(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  // Handlers go in before anything is announced: a supervisor may signal as soon as it reads the
  // start-up message, and a signal that arrives with no handler kills the process without cleanup.
  const shutdown = installShutdownHandlers();
  // Log lines (Fastify's "Server listening", a request that arrives early) wait until the text for a person is
  // out, so it reads as one block at a terminal; a start that fails lets them out too.
  const logs = createHeldLogStream((line) => process.stdout.write(line));
  // The SQLite file is one service's: held before it is opened (or upgraded), until the service has closed it.
  const release =
    config.postgres === null
      ? await startupStep(
          async () => claimDatabase(config.databasePath),
          (error) => databaseStartupError(error, config.databasePath),
        )
      : () => undefined;
  let started = false;
  try {
    const service = await startupStep(
      () => createService(config, { logStream: logs }),
      (error) =>
        config.postgres === null
          ? databaseStartupError(error, config.databasePath)
          : postgresStartupError(error, config.postgres.url),
    );
    // From here its dispatcher runs: a signal, even before the start-up text, closes it cleanly.
    shutdown.serviceCreated({
      ...service,
      close: async () => {
        await service.close();
        release();
      },
    });
    let address: string;
    try {
      address = await startupStep(
        () => service.app.listen({ host: config.host, port: config.port }),
        (error) => listenStartupError(error, config.host, config.port),
      );
    } catch (error) {
      await service.close();
      throw error;
    }
    // Only once the port is open: a start that cannot listen must not make the one token it would never show.
    const firstToken = await bootstrapFirstAccount(service);
    // One write, ending with the database line, so a reader of stdout sees the whole message at once.
    process.stdout.write(startupText(config, address, firstToken));
    started = true;
  } finally {
    logs.release();
    if (!started) release();
  }
}

/** What a person needs once the service listens: where, how to get a token, what is switched off, which database. */
function startupText(config: Config, address: string, firstToken: string | null): string {
  const lines = [`jobhooks is listening on ${address}`, `API base URL (host_url for clients): ${address}/api`];
  if (firstToken !== null) {
    lines.push(
      'Created account 1 (enterprise plan) and an Account Admin API token. It is shown only this once:',
      `  ${firstToken}`,
      `Try: curl -H "Authorization: Token ${firstToken}" ${address}/api/v3/accounts/1/webhooks/subscriptions`,
    );
  } else if (config.bootstrap !== null) {
    // The operator chose the token: name it, never print it.
    const { accountId } = config.bootstrap;
    lines.push(
      `JOBHOOKS_BOOTSTRAP_TOKEN is an Account Admin API token of account ${accountId}.`,
      `Try: curl -H "Authorization: Token $JOBHOOKS_BOOTSTRAP_TOKEN" ${address}/api/v3/accounts/${accountId}/webhooks/subscriptions`,
    );
  } else {
    const databaseVariable =
      config.postgres === null
        ? `JOBHOOKS_DB=${config.databasePath}`
        : 'JOBHOOKS_DATABASE_URL=... JOBHOOKS_SECRET_KEY=...';
    lines.push(
      'API tokens are shown only when made. To make one (npx jobhooks account list shows the account ids):',
      `  ${databaseVariable} npx jobhooks token create --account <id> --permission "Account Admin"`,
    );
  }
  for (const warning of configurationWarnings(config)) lines.push(`Warning: ${warning}`);
  lines.push(
    `Database: ${config.postgres === null ? config.databasePath : `PostgreSQL at ${describePostgresUrl(config.postgres.url)}`}`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * SIGTERM/SIGINT close the service (attempts in flight finish) and exit 0, from the moment it is made; before that
 * (opening or upgrading the database, waiting for PostgreSQL), they end the process at once (exit 1).
 */
function installShutdownHandlers(): { serviceCreated(service: Service): void } {
  let service: Service | null = null;
  let requested: string | null = null;
  let stopping = false;
  const stop = () => {
    if (stopping || service === null || requested === null) return;
    stopping = true;
    // What the wait is for, and its longest: an operator watching the logs sees why the process has not ended yet.
    const inFlight = service.dispatcher.inFlight();
    service.app.log.info(
      { signal: requested, deliveriesInFlight: inFlight, graceSeconds: SHUTDOWN_GRACE_MS / 1000 },
      `shutting down: waiting up to ${SHUTDOWN_GRACE_MS / 1000} s for ${inFlight} ${inFlight === 1 ? 'delivery' : 'deliveries'} in flight to be answered and recorded`,
    );
    service
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      });
  };
  const onSignal = (signal: string) => {
    // Still opening the database (waiting for PostgreSQL, say): nothing runs yet, so the process ends now. What it
    // was writing is in a transaction, which the database takes back.
    if (service === null) {
      process.stderr.write(`jobhooks: stopped by ${signal} while starting.\n`);
      process.exit(1);
    }
    requested ??= signal;
    stop();
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  return {
    serviceCreated(created) {
      service = created;
      stop();
    },
  };
}
