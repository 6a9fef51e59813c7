// Terraform starts the provider afresh for each step of a command (three times for a plan), and much of a start
// is V8 compiling the bundled program. The compiled code is kept in the user's cache folder, keyed by the program's
// bytes and the Node.js that compiled it, so every start after the first skips that work. The cache only ever
// saves time: a folder that is missing, not the user's own, unwritable, or holding a cache V8 refuses, means the
// program is compiled as it would be without one.
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, parse } from 'node:path';
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

const ownedByThisUser = (uid: number) => uid === (process.getuid?.() ?? uid);

/** Only a real folder of this user's that no one else may write to holds code this process runs. */
function isPrivateFolder(dir: string): boolean {
  const stats = lstatSync(dir);
  return stats.isDirectory() && ownedByThisUser(stats.uid) && (stats.mode & 0o022) === 0;
}

/**
 * Makes the folder, but only inside a folder of this user's: a provider run by root with another user's HOME
 * (sudo keeping HOME) must not leave folders that user cannot write in their home.
 */
function makeFolder(dir: string): void {
  let existing = dir;
  while (!existsSync(existing) && existing !== parse(existing).root) existing = dirname(existing);
  if (existing !== dir && !ownedByThisUser(lstatSync(existing).uid)) throw new Error(`${existing} is not ours`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Named by a hash of the code compiled and the Node.js: V8 checks a cached source by its length alone. */
function entryFile(dir: string, compiled: string): string {
  const key = createHash('sha256').update(`${process.version}\0${process.arch}\0`).update(compiled).digest('hex');
  return join(dir, `${key}${ENTRY_SUFFIX}`);
}

function readEntry(file: string): Buffer | undefined {
  try {
    return isPrivateFolder(dirname(file)) ? readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Written whole or not at all (a temporary file of its own renamed: starts at the same time may save the same
 * entry), readable by this user only; entries older than ENTRY_KEPT_MS removed. `data` is made only once the
 * folder is known to be usable.
 */
function writeEntry(file: string, data: () => Buffer, now: number): void {
  const dir = dirname(file);
  makeFolder(dir);
  if (!isPrivateFolder(dir)) return;
  const temporary = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  writeFileSync(temporary, data(), { mode: 0o600, flag: 'wx' });
  renameSync(temporary, file);
  for (const name of readdirSync(dir)) {
    const other = join(dir, name);
    try {
      if (other !== file && now - statSync(other).mtimeMs > ENTRY_KEPT_MS) rmSync(other, { force: true });
    } catch {
      // Removed meanwhile by another start's save.
    }
  }
}

export interface CachedRun {
  /** Whether V8 took the compiled code from the cache. */
  fromCache: boolean;
  /** Saves the code compiled so far (the program's and every function it has run), unless it came from the cache. */
  save(now?: number): void;
}

/**
 * Runs `source`, a CommonJS module, as `filename`, compiled from the cache when it holds this program for this
 * Node.js. Errors of the cache are swallowed; errors of the program are its own.
 */
export function runWithCodeCache(source: string, filename: string, dir: string | null): CachedRun {
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const file = dir === null ? null : entryFile(dir, wrapped);
  const cachedData = file === null ? undefined : readEntry(file);
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
        writeEntry(file, () => script.createCachedData(), now);
      } catch {
        // No cache this time: the next start compiles again.
      }
    },
  };
}
