// Terraform starts the provider afresh for each step of a command (three times for a plan), and most of a start is
// V8 compiling the bundled program. The compiled code is kept in the user's cache folder, keyed by the program's
// bytes and the Node.js that compiled it, so every start after the first skips that work. The cache only ever
// saves time: a folder that is missing, not the user's own, unwritable, or holding a cache V8 refuses, means the
// program is compiled as it would be without one.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** An entry older than this (by when it was written) is removed when a new one is saved. */
const ENTRY_KEPT_MS = 30 * 24 * 3600 * 1000;
const ENTRY_SUFFIX = '.v8';

/** The cache folder: $XDG_CACHE_HOME/jobhooks/terraform-provider, else under ~/.cache; null without a home. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const home = env.HOME || null;
  const base = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : home && join(home, '.cache');
  return base ? join(base, 'jobhooks', 'terraform-provider') : null;
}

/** Only a real folder of this user's that no one else may write to holds code this process runs. */
function isPrivateFolder(dir: string): boolean {
  const stats = lstatSync(dir);
  const uid = process.getuid?.();
  return stats.isDirectory() && (uid === undefined || stats.uid === uid) && (stats.mode & 0o022) === 0;
}

/** Named by a hash of the program and the Node.js: V8 checks a cached source by its length alone. */
function entryFile(dir: string, source: string): string {
  const key = createHash('sha256').update(`${process.version}\0${process.arch}\0`).update(source).digest('hex');
  return join(dir, `${key}${ENTRY_SUFFIX}`);
}

function readEntry(file: string): Buffer | undefined {
  try {
    return isPrivateFolder(dirname(file)) ? readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole or not at all (a temporary file renamed), readable by this user only; old entries removed. */
function writeEntry(file: string, data: Buffer, now: number): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!isPrivateFolder(dir)) return;
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, data, { mode: 0o600 });
  renameSync(temporary, file);
  for (const name of readdirSync(dir)) {
    const other = join(dir, name);
    if (other !== file && now - statSync(other).mtimeMs > ENTRY_KEPT_MS) rmSync(other, { force: true });
  }
}

export interface CachedRun {
  /** Whether V8 took the compiled code from the cache. */
  fromCache: boolean;
  /** Saves the code compiled so far (the program's and every function it has run), when the cache had none. */
  save(now?: number): void;
}

/**
 * Runs `source`, a CommonJS module, as `filename`, compiled from the cache when it holds this program for this
 * Node.js. Errors of the cache are swallowed; errors of the program are its own.
 */
export function runWithCodeCache(source: string, filename: string, dir: string | null): CachedRun {
  const file = dir === null ? null : entryFile(dir, source);
  const cachedData = file === null ? undefined : readEntry(file);
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename, cachedData });
  const fromCache = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    module.exports,
    module.exports,
    createRequire(filename),
    module,
    filename,
    dirname(filename),
  );
  return {
    fromCache,
    save(now = Date.now()) {
      if (fromCache || file === null) return;
      try {
        writeEntry(file, script.createCachedData(), now);
      } catch {
        // No cache this time: the next start compiles again.
      }
    },
  };
}
