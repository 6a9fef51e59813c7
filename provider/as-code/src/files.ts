// Which files a command reads: paths and glob patterns, each of which must match something, because an apply of
// fewer files than meant would delete the webhooks of the missing ones.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import type { Problem } from './problem';

export async function expandFilePatterns(
  patterns: string[],
  cwd: string,
): Promise<{ files: string[]; problems: Problem[] }> {
  // By absolute path, so `a.yml` and `./a.yml` are read once; shown as the user wrote them.
  const files = new Map<string, string>();
  const problems: Problem[] = [];
  if (patterns.length === 0)
    problems.push(fileProblem(null, 'name at least one file or glob pattern (e.g. webhooks/*.yml)'));
  for (const pattern of patterns) {
    if (!isDynamicPattern(pattern)) {
      const path = resolve(cwd, pattern);
      if (!existsSync(path)) problems.push(fileProblem(pattern, 'no such file'));
      else if (!statSync(path).isFile())
        problems.push(fileProblem(pattern, 'is not a file (a folder? use a pattern such as folder/*.yml)'));
      else if (!files.has(path)) files.set(path, pattern);
      continue;
    }
    const matches = await glob(pattern, {
      cwd,
      onlyFiles: true,
      expandDirectories: false,
      absolute: isAbsolute(pattern),
    });
    if (matches.length === 0) problems.push(fileProblem(pattern, 'the pattern matches no file'));
    for (const match of matches.sort()) if (!files.has(resolve(cwd, match))) files.set(resolve(cwd, match), match);
  }
  return { files: [...files.values()], problems };
}

const fileProblem = (file: string | null, message: string): Problem => ({
  file,
  line: null,
  identifier: null,
  message,
});
