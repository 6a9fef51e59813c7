// Making the folder a file goes in, with its missing parents, as `mkdir -p` does.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Makes `folder` and each missing parent. Node 20's `mkdirSync(path, { recursive: true })` never returns for a path
 * under /proc whose folders are missing (mkdir answers ENOENT there although the parent exists, and it retries the
 * parent forever), so the missing folders are made one at a time: the first that cannot be made throws.
 */
export function makeFolder(folder: string): void {
  const missing: string[] = [];
  for (let path = resolve(folder); !existsSync(path) && dirname(path) !== path; path = dirname(path))
    missing.push(path);
  // Nothing missing: a recursive mkdir returns for an existing folder, and throws EEXIST for a file in the way.
  if (missing.length === 0) mkdirSync(folder, { recursive: true });
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path);
    } catch (error) {
      // Made meanwhile by another process starting at the same moment; anything else in the way (a file, a broken
      // symbolic link) is the error.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(path).isDirectory()) throw error;
    }
  }
}
