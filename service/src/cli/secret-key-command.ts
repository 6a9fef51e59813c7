// `jobhooks secret-key rotate`: every webhook secret re-encrypted under a new key, in one transaction. The new
// key is written to `secret.key.new` (synced, 0600) before the commit, in either mode, so a crash or a lost
// terminal at any point leaves the key that opens the database on disk; with the key file it then takes the
// old file's place, which is kept under a dated name. On PostgreSQL (no database folder) `secret.key.new` is
// written in the current directory, and the store refuses while an instance is connected.
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config';
import { ConfigurationError } from '../core/errors';
import type { RandomBytes } from '../core/random';
import { createSecretBox, newSecretKey, secretKeyFileOf, writeNewKeyFile } from '../security/secret-box';
import { keyCheckFor, openCheckedSecretBox } from '../security/secret-key-check';
import { claimDatabase, runningServiceOf } from '../service-lock';
import type { Store } from '../store/store';

export interface Rotation {
  webhooks: number;
  /** Where the new key is: the key file, or `secret.key.new` when the key came from JOBHOOKS_SECRET_KEY. */
  keyFile: string;
  /** Where the previous key file went (key-file mode only). */
  previousKeyFile: string | null;
  newKeyHex: string;
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function rotateSecretKey(
  config: Config,
  store: Store,
  random: RandomBytes,
  now: Date = new Date(),
): Promise<Rotation> {
  const running = config.postgres === null ? runningServiceOf(config.databasePath) : null;
  if (running !== null) {
    throw new ConfigurationError(
      `The service is running on this database (${running}): stop it first, or it would keep sealing new secrets with the old key.`,
    );
  }
  // Held while the secrets change: a service started meanwhile (a restart policy, say) is refused, rather than
  // reading the old key.
  const release = config.postgres === null ? claimDatabase(config.databasePath) : () => undefined;
  try {
    return await rotateUnder(config, store, random, now);
  } finally {
    release();
  }
}

async function rotateUnder(config: Config, store: Store, random: RandomBytes, now: Date): Promise<Rotation> {
  const keyFile = config.postgres === null ? secretKeyFileOf(config.databasePath) : resolve('secret.key');
  const current = await openCheckedSecretBox({ envValue: config.secretKey, keyFile, store: store.secretKeys, random });
  const newKey = newSecretKey(random);
  const next = createSecretBox(newKey, random);
  const newKeyHex = newKey.toString('hex');
  const pending = `${keyFile}.new`;
  rmSync(pending, { force: true });
  writeNewKeyFile(pending, newKey);
  syncPath(dirname(pending));
  let webhooks: number;
  try {
    webhooks = await store.secretKeys.resealAll((sealed) => next.seal(current.open(sealed)), keyCheckFor(next));
  } catch (error) {
    // Refused before any change (an instance is connected): the new key sealed nothing. Any other failure keeps
    // the file, since the commit may have happened before the connection broke.
    if (error instanceof ConfigurationError) rmSync(pending, { force: true });
    throw error;
  }
  if (config.secretKey) return { webhooks, keyFile: pending, previousKeyFile: null, newKeyHex };
  // Dated, so a second rotation never overwrites the key an older backup needs.
  const previousKeyFile = `${keyFile}.${now.toISOString().replace(/[:.]/g, '-')}.old`;
  if (existsSync(keyFile)) renameSync(keyFile, previousKeyFile);
  renameSync(pending, keyFile);
  syncPath(dirname(keyFile));
  return { webhooks, keyFile, previousKeyFile, newKeyHex };
}
