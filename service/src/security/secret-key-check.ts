// Which key a database's webhook secrets are sealed with, checked before the service uses it: a start with
// another key (a restore without secret.key, another JOBHOOKS_SECRET_KEY) would otherwise run and fail every
// delivery and test. A known text sealed with the key is kept in the database for that.
import { ConfigurationError } from '../core/errors';
import type { RandomBytes } from '../core/random';
import type { SecretKeysStore } from '../store/store';
import { existsSync, readFileSync } from 'node:fs';
import { createSecretBox, loadSecretKey, parseSecretKey, type SecretBox } from './secret-box';

const KEY_CHECK_TEXT = 'jobhooks secret key check';

/** True when the database holds anything sealed with a key, so no new key may be made for it. */
export async function holdsSealedSecrets(store: SecretKeysStore): Promise<boolean> {
  return (await store.keyCheck()) !== null || (await store.anySealedSecret()) !== null;
}

const opens = (box: SecretBox, sealed: string) => {
  try {
    box.open(sealed);
    return true;
  } catch {
    return false;
  }
};

/**
 * Refuses a key the database's secrets are not sealed with, naming where the key comes from; records the check
 * on a database that has none yet (made before the check existed, or new).
 */
export async function checkSecretKey(store: SecretKeysStore, box: SecretBox, keySource: string): Promise<void> {
  const check = await store.keyCheck();
  const sample = check ?? (await store.anySealedSecret());
  if (sample !== null && !opens(box, sample)) {
    throw new ConfigurationError(
      `The secret key from ${keySource} is not the key this database's webhook secrets are sealed with: set JOBHOOKS_SECRET_KEY to that key, or restore the secret.key kept with the database.`,
    );
  }
  if (check === null) await store.setKeyCheck(box.seal(KEY_CHECK_TEXT));
}

/** A new check for `box`'s key, for a rotation to store with the re-sealed secrets. */
export function keyCheckFor(box: SecretBox): string {
  return box.seal(KEY_CHECK_TEXT);
}

/**
 * The secret box of the database's key (JOBHOOKS_SECRET_KEY, or the key file, made only for a database with no
 * secrets yet), after checking that it is the key the database's secrets are sealed with.
 */
export async function openCheckedSecretBox(options: {
  envValue: string | undefined;
  keyFile: string;
  store: SecretKeysStore;
  random: RandomBytes;
}): Promise<SecretBox> {
  const { envValue, keyFile, store, random } = options;
  try {
    const key = loadSecretKey({ envValue, keyFile, random, mayCreateKeyFile: !(await holdsSealedSecrets(store)) });
    const box = createSecretBox(key, random);
    await checkSecretKey(store, box, envValue ? 'JOBHOOKS_SECRET_KEY' : keyFile);
    return box;
  } catch (error) {
    throw (await interruptedRotation(error, `${keyFile}.new`, store, random)) ?? error;
  }
}

/** When a refused key is explained by a rotation that stopped between its commit and its rename: say so. */
async function interruptedRotation(
  error: unknown,
  pendingKeyFile: string,
  store: SecretKeysStore,
  random: RandomBytes,
): Promise<Error | null> {
  if (!(error instanceof ConfigurationError) || !existsSync(pendingKeyFile)) return null;
  const check = await store.keyCheck();
  try {
    if (check === null || !opens(createSecretBox(parseSecretKey(readFileSync(pendingKeyFile, 'utf8')), random), check))
      return null;
  } catch {
    return null;
  }
  return new ConfigurationError(
    `${error.message} The key in ${pendingKeyFile} opens it (a key rotation stopped before its last step): move that file to secret.key, or set JOBHOOKS_SECRET_KEY to its key.`,
  );
}
