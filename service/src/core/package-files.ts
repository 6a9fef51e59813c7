// Where the jobhooks package's own files are, the same way whether this code runs from src/ (tests, tsx) or
// from the built dist/: both folders sit directly under the package root, and this file is one level deeper.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PACKAGE_ROOT = join(__dirname, '..', '..');

/** The built web UI (`npm run build` writes it; the published package ships it). */
export const BUILT_UI_DIRECTORY = join(PACKAGE_ROOT, 'dist', 'ui');

/** The package's version, read once from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
