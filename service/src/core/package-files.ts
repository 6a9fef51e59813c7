// Where the jobhooks package's own files are, the same way whether this code runs from src/ (tests, tsx) or
// from the built dist/: both folders sit directly under the package root, and this file is one level deeper.
// Whether it runs from source is decided here only; other files ask (RUNNING_FROM_SOURCE, workerEntry).
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

export const PACKAGE_ROOT = join(__dirname, '..', '..');

/** True when this code runs from its TypeScript source (ts-jest, tsx), false when it runs from the built dist/. */
export const RUNNING_FROM_SOURCE = extname(__filename) === '.ts';

/** The built web UI (`npm run build` writes it; the published package ships it). */
export const BUILT_UI_DIRECTORY = join(PACKAGE_ROOT, 'dist', 'ui');

/** A module to start as a worker thread, and the Node options it needs. */
export interface WorkerEntry {
  path: string;
  execArgv: string[];
}

/**
 * The module `baseName` (no extension) in the folder `dirname`, to run in a worker thread. Built, it is the
 * JavaScript file there; from source, it is the TypeScript file, which a thread can run only with tsx loaded.
 */
export function workerEntry(dirname: string, baseName: string): WorkerEntry {
  return RUNNING_FROM_SOURCE
    ? { path: join(dirname, `${baseName}.ts`), execArgv: ['--require', 'tsx/cjs'] }
    : { path: join(dirname, `${baseName}.js`), execArgv: [] };
}

/** The package's version, read once from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
