// Encrypts webhook secrets at rest with AES-256-GCM, so a copy of the database file does not leak them.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigurationError } from '../core/errors';
import type { RandomBytes } from '../core/random';
import { makeFolder } from '../core/make-folder';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Version tag of the sealed format, so the format can change without guessing. */
const FORMAT = 'v1';

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function createSecretBox(key: Buffer, random: RandomBytes): SecretBox {
  if (key.length !== KEY_BYTES) throw new ConfigurationError(`secret key must be ${KEY_BYTES} bytes`);
  return {
    seal(plaintext) {
      const iv = random(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${FORMAT}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed) {
      const [format, encoded] = sealed.split(':', 2);
      if (format !== FORMAT || encoded === undefined) throw new Error('unknown sealed secret format');
      const raw = Buffer.from(encoded, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/** Where the key file of a database is kept when JOBHOOKS_SECRET_KEY is not set: beside it. */
export function secretKeyFileOf(databasePath: string): string {
  return join(dirname(databasePath), 'secret.key');
}

/** A new random key for the secret box. */
export function newSecretKey(random: RandomBytes): Buffer {
  return random(KEY_BYTES);
}

/** Writes `key` as hex to a file that must not exist yet (EEXIST otherwise), mode 0600, synced to disk. */
export function writeNewKeyFile(path: string, key: Buffer): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, `${key.toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Accepts 64 hex characters or the base64 of 32 bytes. */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const decoded = Buffer.from(trimmed, 'base64');
  if (decoded.length === KEY_BYTES && /^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) return decoded;
  throw new ConfigurationError(
    'JOBHOOKS_SECRET_KEY must be 64 hex characters or the base64 of 32 bytes (try: openssl rand -hex 32)',
  );
}

/**
 * The key from JOBHOOKS_SECRET_KEY, or else from a key file beside the database, created on first use
 * with mode 0600 (only when `mayCreateKeyFile`: not for a database that holds secrets already). Losing the
 * key makes stored secrets unreadable, so it is never silently replaced.
 */
export function loadSecretKey(options: {
  envValue: string | undefined;
  keyFile: string;
  random: RandomBytes;
  mayCreateKeyFile?: boolean;
}): Buffer {
  if (options.envValue !== undefined && options.envValue !== '') return parseSecretKey(options.envValue);
  if (options.mayCreateKeyFile === false && !existsSync(options.keyFile)) {
    // A new key could open none of the secrets already stored: never make one for such a database.
    throw new ConfigurationError(
      `This database holds webhook secrets, but there is no JOBHOOKS_SECRET_KEY and no key file at ${options.keyFile}: set JOBHOOKS_SECRET_KEY to the key, or restore the secret.key kept with the database.`,
    );
  }
  makeFolder(dirname(options.keyFile));
  try {
    // Fails if the file exists, so two processes starting together cannot both write a key.
    writeNewKeyFile(options.keyFile, newSecretKey(options.random));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let text: string;
  try {
    text = readFileSync(options.keyFile, 'utf8');
  } catch (error) {
    throw new ConfigurationError(
      `The key file ${options.keyFile} cannot be read (${(error as NodeJS.ErrnoException).code}): fix it, or set JOBHOOKS_SECRET_KEY.`,
    );
  }
  try {
    return parseSecretKey(text);
  } catch {
    throw new ConfigurationError(`${options.keyFile} does not hold a valid key (64 hex characters)`);
  }
}
