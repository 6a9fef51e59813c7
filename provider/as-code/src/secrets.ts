// Where the secrets of created webhooks go: the API returns a webhook's `hmac_secret` once, on create, so apply
// must not lose it, and must not leak it into any other output.
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { CliError } from '@jobhooks/client';

export interface SecretSink {
  /** Checks, before anything changes, that secrets can be kept; throws a CliError if not. */
  prepare(): void;
  record(key: string, secret: string): void;
  /** The webhook of `key` was deleted: its secret verifies nothing any more, and is not kept. */
  forget(key: string): void;
}

/**
 * `--secrets-out FILE`: a JSON object from `identifier` (or `namespace/identifier`) to secret, merged with what the
 * file holds, rewritten after each create and each delete (which drops that webhook's secret) by a rename of a file
 * made with mode 0600 (never readable by others, never half-written).
 */
export function secretsFile(path: string): SecretSink {
  let secrets: Record<string, string> = {};
  const write = () => {
    // A new file of an unguessable name, made with mode 0600 (`wx` refuses a file or link planted there), then
    // renamed over the old one.
    const temporary = `${path}.${randomBytes(8).toString('hex')}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(temporary, path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw new CliError(`--secrets-out ${path} cannot be written (${codeOf(error)}).`);
    }
  };
  return {
    prepare() {
      secrets = readSecrets(path);
      try {
        write();
      } catch (error) {
        throw new CliError(`${(error as Error).message.replace(/\.$/, '')}; nothing was changed.`);
      }
    },
    record(key, secret) {
      secrets[key] = secret;
      write();
    },
    forget(key) {
      if (!(key in secrets)) return;
      delete secrets[key];
      write();
    },
  };
}

/**
 * `--show-secrets`: each secret on standard output as soon as its webhook is created, so that a run stopped
 * midway (an error, a signal, a closed pipe) has already shown the secrets of what it created.
 */
export function shownSecrets(print: (text: string) => void): SecretSink {
  let shown = 0;
  return {
    prepare() {},
    record(key, secret) {
      if (shown === 0) print('The secrets of the created webhooks (the API shows each only once: keep them now):\n');
      shown += 1;
      print(`  ${key}: ${secret}\n`);
    },
    forget() {},
  };
}

/** What a secrets file holds: identifier (or namespace/identifier) -> secret. */
const SecretsFileContent = z.record(z.string(), z.string());

function readSecrets(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`--secrets-out ${path} cannot be read (${codeOf(error)}).`);
  }
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // reported below, without quoting the content: it may hold secrets
  }
  const checked = SecretsFileContent.safeParse(parsed);
  if (!checked.success)
    throw new CliError(
      `--secrets-out ${path} is not a JSON object of secrets (identifier -> secret); nothing was changed.`,
    );
  return checked.data;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
