// `jobhooks secret-key rotate`: every webhook secret re-encrypted under a new key, in one transaction. The
// new key is written beside the old one first and takes its place only after the commit, so a crash at any
// point leaves a database and a key file that still belong together (or the new file next to them).
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Config } from '../config';
import type { RandomBytes } from '../core/random';
import { createSecretBox, secretKeyFileOf } from '../security/secret-box';
import { keyCheckFor, openCheckedSecretBox } from '../security/secret-key-check';
import type { Store } from '../store/store';

const KEY_BYTES = 32;

export interface Rotation {
  webhooks: number;
  /** Where the new key now is: the key file, or null when it came from JOBHOOKS_SECRET_KEY (then `newKeyHex` must be set there). */
  keyFile: string | null;
  newKeyHex: string;
}

function writePrivateFile(path: string, text: string): void {
  rmSync(path, { force: true });
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function rotateSecretKey(config: Config, store: Store, random: RandomBytes): Promise<Rotation> {
  const keyFile = secretKeyFileOf(config.databasePath);
  const current = await openCheckedSecretBox({ envValue: config.secretKey, keyFile, store: store.secretKeys, random });
  const newKey = random(KEY_BYTES);
  const next = createSecretBox(newKey, random);
  const newKeyHex = newKey.toString('hex');
  const fromFile = !config.secretKey;
  const pending = `${keyFile}.new`;
  if (fromFile) writePrivateFile(pending, `${newKeyHex}\n`);
  const webhooks = await store.secretKeys.resealAll((sealed) => next.seal(current.open(sealed)), keyCheckFor(next));
  if (fromFile) {
    if (existsSync(keyFile)) renameSync(keyFile, `${keyFile}.old`);
    renameSync(pending, keyFile);
  }
  return { webhooks, keyFile: fromFile ? keyFile : null, newKeyHex };
}
