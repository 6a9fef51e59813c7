// The `jobhooks` command line: start the service, and manage accounts and API tokens on its database.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { DBTCLOUD_PROVIDER_VERSION } from '@jobhooks/client';
import { createAccountService } from '../accounts/account-service';
import { loadConfig } from '../config';
import { PERMISSION_SETS, PermissionSet, PLANS, Plan } from '@jobhooks/client/contract';
import { createSystemClock } from '../core/clock';
import { ConfigurationError, JobhooksError } from '../core/errors';
import { createIdGenerator } from '../core/ids';
import { cryptoRandomBytes } from '../core/random';
import { startServer } from '../main';
import { schemaVersion } from '../store/sqlite/database';
import { MIGRATIONS } from '../store/sqlite/migrations';
import { createSqliteStore } from '../store/sqlite/sqlite-store';
import { copySqliteToPostgres, COPIED_TABLES } from '../store/copy-to-postgres';
import { createPostgresStore } from '../store/postgres/postgres-store';
import { isPostgresUrl } from '../store/postgres/database';
import type { Store } from '../store/store';
import { runningServiceOf } from '../service-lock';
import { describePostgresUrl, postgresStartupError, startupStep } from '../startup-errors';
import { secretKeyFileOf } from '../security/secret-box';
import { backupDatabase } from './backup-command';
import { rotateSecretKey } from './secret-key-command';

const HELP = `Usage: jobhooks <command> [options]

Commands:
  start                       Start the API (the default when no command is given).
  account create --id N [--name S] [--plan ${PLANS.join('|')}]
                              Create an account (plan defaults to enterprise).
  account list                List accounts.
  token create --account N --permission "<permission set>" [--name S]
                              Create an API token and print it (only the token, on stdout).
                              Permission sets: ${PERMISSION_SETS.join(', ')}.
  token list --account N      List an account's tokens (never the tokens themselves).
  token revoke <token id>     Revoke a token; requests with it are refused from then on.
  db copy --to URL            Copy the SQLite database (JOBHOOKS_DB) into an empty PostgreSQL database
                              (postgres://...): accounts, tokens, webhooks with their sealed secrets,
                              pending deliveries and the delivery log, from one consistent snapshot, in
                              one transaction. Stop the service first, or what it accepts meanwhile is
                              not in the copy. Then start every instance with JOBHOOKS_DATABASE_URL and
                              the same secret key.
  backup --to FILE            Copy the database, consistent while the service runs, to a new FILE (SQLite's
                              online backup). Keep the secret key with it: see docs/operating.md, "Backups and restore".
  secret-key rotate           Re-encrypt every webhook secret under a new random key, in one transaction.
                              Refused while the service runs (on PostgreSQL, while any instance is
                              connected). With the key file, the new key replaces secret.key (the old one
                              is kept under a dated name); with JOBHOOKS_SECRET_KEY, the new key is printed
                              (only the key, on stdout) and written to secret.key.new (beside the SQLite
                              database; on PostgreSQL, in the current directory): set the variable to it.
  terraform install [--user | --dir D] [--version V] [--source S]
                              Install the Terraform provider (as dbt-labs/dbtcloud, version ${DBTCLOUD_PROVIDER_VERSION} by
                              default) where Terraform finds it with no CLI configuration: ./terraform.d/plugins,
                              with every platform's checksum locked, or each stack's terraform.d/plugins in a
                              CDKTF app; --user: ~/.terraform.d/plugins, for every configuration of this user
                              in place of the public provider. --dir D writes a mirror and a CLI
                              configuration into D and prints the TF_CLI_CONFIG_FILE setting instead. --source
                              serves it under another address (say jobhooks/dbtcloud) beside the public
                              provider. Needs the package @jobhooks/terraform-provider.

The account, token and secret-key commands work on the PostgreSQL database of JOBHOOKS_DATABASE_URL when it is
set, and otherwise on the SQLite file of JOBHOOKS_DB (default ./data/jobhooks.db); the account and token
commands also while the service runs. Each command's options are those above; "jobhooks <command> --help"
prints this text.
`;

class UsageError extends Error {}

/** Parses string options strictly: an unknown option is a usage error, not silently ignored. */
function parse(args: string[], names: string[]): { values: Record<string, string | undefined>; positionals: string[] } {
  const options = Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: parsed.values as Record<string, string | undefined>, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function wholeNumber(value: unknown, option: string): number {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value) || Number(value) < 1) {
    throw new UsageError(`${option} must be a positive whole number`);
  }
  return Number(value);
}

function pick<T extends string>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
  option: string,
  choices: readonly string[],
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UsageError(`${option} must be one of: ${choices.join(', ')}`);
  return parsed.data;
}

/** The service's database path, which must exist: the CLI never makes one. */
function existingDatabase(config: ReturnType<typeof loadConfig>): string {
  // Run from another folder, the default path names a file that does not exist: making an empty database
  // there would hide the mistake. Say which path was used instead.
  if (!existsSync(config.databasePath)) {
    throw new ConfigurationError(
      `There is no database at ${config.databasePath}: set JOBHOOKS_DB to the service's database (the path its start-up message ends with), or start the service once to create it.`,
    );
  }
  process.stderr.write(`Database: ${config.databasePath}\n`);
  return config.databasePath;
}

/**
 * Opening the store upgrades an older database. A service of the older build still running on it would then
 * fail on the new schema (a table it knows by another name), so the command refuses instead: the new
 * service upgrades the database when it starts.
 */
function refuseUpgradeBesideOlderService(databasePath: string): void {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  let version: number;
  try {
    version = schemaVersion(db);
  } finally {
    db.close();
  }
  const running = runningServiceOf(databasePath);
  if (version < MIGRATIONS.at(-1)!.version && running !== null) {
    throw new ConfigurationError(
      `The database at ${databasePath} was made by an older jobhooks, whose service is still running (${running}): stop it and start this version's service, which upgrades the database, then run this command again.`,
    );
  }
}

function openExistingStore(config: ReturnType<typeof loadConfig>) {
  const databasePath = existingDatabase(config);
  refuseUpgradeBesideOlderService(databasePath);
  return createSqliteStore(databasePath);
}

/** The store the service uses: PostgreSQL when JOBHOOKS_DATABASE_URL is set, else the existing SQLite file. */
async function openServiceStore(config: ReturnType<typeof loadConfig>): Promise<Store> {
  if (config.postgres === null) return openExistingStore(config);
  const { url } = config.postgres;
  process.stderr.write(`Database: PostgreSQL at ${describePostgresUrl(url)}\n`);
  return startupStep(
    () =>
      createPostgresStore({
        url,
        poolSize: 2,
        onBackgroundError: (error, what) => process.stderr.write(`jobhooks: ${what} failed: ${String(error)}\n`),
      }),
    (error) => postgresStartupError(error, url),
  );
}

/** Commands that work on the SQLite file only say so, rather than act on a file the service does not use. */
function refuseWithPostgres(config: ReturnType<typeof loadConfig>, command: string, instead: string): void {
  if (config.postgres !== null) {
    throw new ConfigurationError(
      `jobhooks ${command} works on the SQLite database, and JOBHOOKS_DATABASE_URL is set: ${instead}`,
    );
  }
}

async function withAccounts<T>(run: (accounts: ReturnType<typeof createAccountService>) => Promise<T>): Promise<T> {
  const store = await openServiceStore(loadConfig(process.env));
  const clock = createSystemClock();
  try {
    return await run(
      createAccountService({
        store,
        clock,
        ids: createIdGenerator(clock, cryptoRandomBytes),
        random: cryptoRandomBytes,
      }),
    );
  } finally {
    await store.close();
  }
}

async function backupCommand(args: string[]): Promise<void> {
  const { values } = parse(args, ['to']);
  if (values.to === undefined) throw new UsageError('backup needs --to FILE');
  const config = loadConfig(process.env);
  refuseWithPostgres(
    config,
    'backup',
    'back up PostgreSQL with pg_dump, and keep JOBHOOKS_SECRET_KEY apart from the dumps (see docs/operating.md#backups-and-restore).',
  );
  const { target, pages } = await backupDatabase(existingDatabase(config), values.to);
  const key = config.secretKey ? 'JOBHOOKS_SECRET_KEY' : secretKeyFileOf(config.databasePath);
  process.stdout.write(
    `Backed up ${config.databasePath} to ${target} (${pages} pages). Its webhook secrets are sealed with the secret key: keep ${key} with the backup.\n`,
  );
}

async function secretKeyCommand(sub: string | undefined): Promise<void> {
  if (sub !== 'rotate') throw new UsageError('secret-key needs a subcommand: rotate');
  const config = loadConfig(process.env);
  const store = await openServiceStore(config);
  try {
    const rotation = await rotateSecretKey(config, store, cryptoRandomBytes);
    if (rotation.previousKeyFile !== null) {
      process.stderr.write(
        `Re-encrypted ${rotation.webhooks} webhook secrets under a new key, now in ${rotation.keyFile} (the old key is in ${rotation.previousKeyFile}: keep it as long as backups taken before need it).\n`,
      );
    } else {
      process.stdout.write(`${rotation.newKeyHex}\n`);
      process.stderr.write(
        `Re-encrypted ${rotation.webhooks} webhook secrets under the new key printed above, also written to ${rotation.keyFile}: set JOBHOOKS_SECRET_KEY${config.postgres === null ? '' : ' of every instance'} to it before the next start, then delete that file.\n`,
      );
    }
  } finally {
    await store.close();
  }
}

/** What the copy's target needs to open the copied secrets, as the operator sets it. */
function keyAdvice(config: ReturnType<typeof loadConfig>): string {
  if (config.secretKey !== undefined)
    return 'The webhook secrets stay sealed under JOBHOOKS_SECRET_KEY: start every instance with the same value.';
  const keyFile = secretKeyFileOf(config.databasePath);
  if (!existsSync(keyFile)) return 'There is no secret key yet: give every instance the same JOBHOOKS_SECRET_KEY.';
  return `The webhook secrets stay sealed under the key in ${keyFile}: start every instance with JOBHOOKS_SECRET_KEY=$(cat ${keyFile}), and keep that key apart from the database's dumps.`;
}

async function dbCommand(sub: string | undefined, args: string[]): Promise<void> {
  if (sub !== 'copy') throw new UsageError('db needs a subcommand: copy');
  const { values } = parse(args, ['to']);
  const url = values.to;
  if (url === undefined || !isPostgresUrl(url))
    throw new UsageError(
      'db copy needs --to postgres://user:password@host:5432/database (a new, empty PostgreSQL database; a port is digits, special characters in the password are percent-encoded)',
    );
  const config = loadConfig({ ...process.env, JOBHOOKS_DATABASE_URL: undefined });
  // Opening the store brings an older file to this build's schema, the one the copy reads.
  await openExistingStore(config).close();
  const running = runningServiceOf(config.databasePath);
  if (running !== null) {
    process.stderr.write(
      `The service is still running on ${config.databasePath} (${running}): what it accepts or sends from now on is not in the copy. Stop it before the instances on PostgreSQL start.\n`,
    );
  }
  const where = describePostgresUrl(url);
  const { rows } = await startupStep(
    () => copySqliteToPostgres({ sqlitePath: config.databasePath, url, where }),
    (error) => postgresStartupError(error, url, '--to'),
  );
  const counts = COPIED_TABLES.filter((t) => t !== 'secret_key_check')
    .map((t) => `${rows[t]} ${t.replace(/_/g, ' ')}`)
    .join(', ');
  process.stdout.write(`Copied ${config.databasePath} to PostgreSQL at ${where}: ${counts}.\n${keyAdvice(config)}\n`);
}

const formatTime = (micros: number | null) => (micros === null ? '-' : new Date(micros / 1000).toISOString());

async function accountCommand(sub: string | undefined, args: string[]): Promise<void> {
  if (sub === 'create') {
    const { values } = parse(args, ['id', 'name', 'plan']);
    const id = wholeNumber(values.id, '--id');
    const plan = values.plan === undefined ? undefined : pick(Plan, values.plan, '--plan', PLANS);
    const account = await withAccounts((a) => a.createAccount({ id, name: values.name, plan }));
    process.stdout.write(`Created account ${account.id} (${account.plan} plan, ${account.identifier}).\n`);
    return;
  }
  if (sub === 'list') {
    parse(args, []);
    const list = await withAccounts((a) => a.listAccounts());
    for (const a of list) process.stdout.write(`${a.id}\t${a.plan}\t${a.identifier}\t${a.name}\n`);
    return;
  }
  throw new UsageError('account needs a subcommand: create or list');
}

async function tokenCommand(sub: string | undefined, args: string[]): Promise<void> {
  if (sub === 'create') {
    const { values } = parse(args, ['account', 'permission', 'name']);
    const accountId = wholeNumber(values.account, '--account');
    const permissionSet = pick(PermissionSet, values.permission, '--permission', PERMISSION_SETS);
    const { token } = await withAccounts((a) => a.createToken({ accountId, permissionSet, name: values.name }));
    process.stdout.write(`${token}\n`);
    return;
  }
  if (sub === 'list') {
    const { values } = parse(args, ['account']);
    const accountId = wholeNumber(values.account, '--account');
    const list = await withAccounts((a) => a.listTokens(accountId));
    for (const t of list) {
      process.stdout.write(
        `${t.id}\t${t.permissionSet}\t${t.revokedAt === null ? 'active' : `revoked ${formatTime(t.revokedAt)}`}\t${t.name}\n`,
      );
    }
    return;
  }
  if (sub === 'revoke') {
    const { positionals } = parse(args, []);
    const id = positionals[0];
    if (id === undefined) throw new UsageError('token revoke needs a token id (see "jobhooks token list")');
    if (!(await withAccounts((a) => a.revokeToken(id)))) throw new UsageError(`No active token with id ${id}`);
    process.stdout.write(`Revoked ${id}.\n`);
    return;
  }
  throw new UsageError('token needs a subcommand: create, list or revoke');
}

/** The part of @jobhooks/terraform-provider this command uses; the package is optional, so it is loaded on demand. */
export interface TerraformProviderPackage {
  runInstallCommand(args: string[]): { code: number; stdout: string; stderr: string };
}

/**
 * @jobhooks/terraform-provider as installed beside this package or in the project of the working directory, or
 * an error that says which package to add.
 */
export function loadTerraformProviderPackage(
  searchFrom: readonly string[] = [process.cwd(), __dirname],
): TerraformProviderPackage {
  let path: string;
  try {
    path = require.resolve('@jobhooks/terraform-provider', { paths: [...searchFrom] });
  } catch {
    throw new ConfigurationError(
      'jobhooks terraform install needs the package @jobhooks/terraform-provider: add it beside jobhooks with "npm install --global @jobhooks/terraform-provider" (in a project: "npm install --save-dev @jobhooks/terraform-provider"), then run this again, or run "npx @jobhooks/terraform-provider install".',
    );
  }
  return require(path) as TerraformProviderPackage;
}

/** `jobhooks terraform install` runs the installer of @jobhooks/terraform-provider. */
function terraformCommand(sub: string | undefined, args: string[]): number {
  if (sub !== 'install') throw new UsageError('terraform needs a subcommand: install');
  const result = loadTerraformProviderPackage().runInstallCommand(args);
  process.stdout.write(result.stdout);
  if (result.stderr) process.stderr.write(`jobhooks: ${result.stderr}`);
  return result.code;
}

export async function runCli(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  try {
    if (command === '--help' || command === '-h' || command === 'help' || argv.includes('--help')) {
      process.stdout.write(HELP);
      return 0;
    }
    if (command === undefined || command === 'start') {
      await startServer();
      return -1; // keeps running
    }
    if (command === 'account') await accountCommand(sub, rest);
    else if (command === 'token') await tokenCommand(sub, rest);
    else if (command === 'secret-key') await secretKeyCommand(sub);
    else if (command === 'backup') await backupCommand(argv.slice(1));
    else if (command === 'db') await dbCommand(sub, rest);
    else if (command === 'terraform') return terraformCommand(sub, rest);
    else throw new UsageError(`unknown command "${command}"`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`jobhooks: ${error.message}\nRun "jobhooks --help" for usage.\n`);
      return 2;
    }
    if (error instanceof ConfigurationError || error instanceof JobhooksError) {
      process.stderr.write(`jobhooks: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
