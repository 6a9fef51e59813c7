// Where the secrets of created webhooks go: the API returns a webhook's `hmac_secret` once, on create, so apply
// must not lose it, and must not leak it into any other output.
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { CliError } from './cli-error';

export interface SecretSink {
  /** Checks, before anything changes, that secrets can be kept; throws a CliError if not. */
  prepare(): void;
  record(key: string, secret: string): void;
  /** After the run (also after a failure): prints what must be printed. */
  finish(): void;
}

/**
 * `--secrets-out FILE`: a JSON object from `identifier` (or `namespace/identifier`) to secret, merged with what the
 * file holds, rewritten after each create by a rename of a file made with mode 0600 (never readable by others,
 * never half-written).
 */
export function secretsFile(path: string): SecretSink {
  let secrets: Record<string, string> = {};
  const write = () => {
    const temporary = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'w' });
      chmodSync(temporary, 0o600); // a leftover temporary file keeps its mode on 'w': set it again
      renameSync(temporary, path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw new CliError(`--secrets-out ${path} cannot be written (${codeOf(error)}).`);
    }
  };
  return {
    prepare() {
      secrets = readSecrets(path);
      write();
    },
    record(key, secret) {
      secrets[key] = secret;
      write();
    },
    finish() {},
  };
}

/** `--show-secrets`: the secrets on standard output, once, at the end of the run (also when it fails midway). */
export function shownSecrets(print: (text: string) => void): SecretSink {
  const secrets: Array<[string, string]> = [];
  return {
    prepare() {},
    record(key, secret) {
      secrets.push([key, secret]);
    },
    finish() {
      if (secrets.length === 0) return;
      print('The secrets of the created webhooks (the API shows each only once: keep them now):\n');
      for (const [key, secret] of secrets) print(`  ${key}: ${secret}\n`);
    },
  };
}

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
  const isSecrets =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((value) => typeof value === 'string');
  if (!isSecrets)
    throw new CliError(
      `--secrets-out ${path} is not a JSON object of secrets (identifier -> secret); nothing was changed.`,
    );
  return parsed as Record<string, string>;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
