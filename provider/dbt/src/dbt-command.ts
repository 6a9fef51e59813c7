// What jobhooks-dbt needs to know of the dbt command it runs, read from its arguments and dbt's own variables:
// where dbt writes its artifacts, the target, the project's name (dbt_project.yml's `name:`), and the command line
// a job is named after, without the values of --vars.
import { bracedLength } from './braced-text';
import { resolve } from 'node:path';

/** The value of `--flag VALUE` or `--flag=VALUE` (the last one given), or null. */
export function flagValue(args: readonly string[], names: readonly string[]): string | null {
  let value: string | null = null;
  args.forEach((arg, index) => {
    for (const name of names) {
      if (arg === name && index + 1 < args.length) value = args[index + 1]!;
      else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
    }
  });
  return value;
}

export interface DbtPaths {
  projectDir: string;
  /** The folder run_results.json and manifest.json are written to. */
  targetPath: string;
}

/** dbt's project folder: --project-dir, then DBT_PROJECT_DIR, then the working folder. */
export const projectDirOf = (args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string =>
  resolve(cwd, flagValue(args, ['--project-dir']) ?? env.DBT_PROJECT_DIR ?? '.');

/**
 * dbt's project folder and target folder, as dbt finds them: its flags, then DBT_PROJECT_DIR and DBT_TARGET_PATH,
 * then the project's dbt_project.yml's `target-path:` (`projectYml`, its text), then the working folder and its
 * `target/`. A target path is relative to the project folder.
 */
export function dbtPaths(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  targetOverride?: string,
  projectYml: string | null = null,
): DbtPaths {
  const projectDir = projectDirOf(args, env, cwd);
  const target =
    targetOverride ??
    flagValue(args, ['--target-path']) ??
    env.DBT_TARGET_PATH ??
    targetPathIn(projectYml, env) ??
    'target';
  return { projectDir, targetPath: targetOverride !== undefined ? resolve(cwd, target) : resolve(projectDir, target) };
}

/** The dbt target (`--target`/`-t`, or DBT_TARGET), which names the environment when no environment name is set. */
export const dbtTarget = (args: readonly string[], env: NodeJS.ProcessEnv): string | null =>
  flagValue(args, ['--target', '-t']) ?? (env.DBT_TARGET || null);

/**
 * The `target-path:` of a dbt_project.yml (a top-level key, deprecated by dbt 1.5 but still read), or null. Of
 * Jinja, only `{{ env_var('NAME') }}` and `{{ env_var('NAME', 'default') }}` are read (from `env`); a value with any
 * other is not known here, and null.
 */
export function targetPathIn(dbtProjectYml: string | null, env: NodeJS.ProcessEnv = {}): string | null {
  if (dbtProjectYml === null) return null;
  const match = /^target-path:[ \t]*(?:"([^"]+)"|'([^']+)'|([^\s#"'][^#\n]*?))[ \t]*(?:#.*)?$/m.exec(dbtProjectYml);
  const value = match?.[1] ?? match?.[2] ?? match?.[3] ?? null;
  if (value === null || !value.includes('{{')) return value;
  const envVar = /^\{\{\s*env_var\(\s*(["'])([^"']+)\1\s*(?:,\s*(["'])([^"']*)\3\s*)?\)\s*\}\}$/.exec(value.trim());
  if (envVar === null) return null;
  return env[envVar[2]!] ?? envVar[4] ?? null;
}

/** The `name:` of a dbt_project.yml (a dbt project name is letters, digits and underscores), or null. */
export function projectNameIn(dbtProjectYml: string | null): string | null {
  if (dbtProjectYml === null) return null;
  const match = /^name:\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*(?:#.*)?$/m.exec(dbtProjectYml);
  return match?.[1] ?? null;
}

/** What stands for the value of --vars in a job name: it may hold secrets (passwords passed to a profile). */
export const HIDDEN_VARS = '…';

/** The dbt command line for a job name, the value of --vars hidden. */
export function commandLineOf(words: readonly string[]): string {
  return words
    .map((word, index) =>
      word.startsWith('--vars=') ? `--vars=${HIDDEN_VARS}` : words[index - 1] === '--vars' ? HIDDEN_VARS : word,
    )
    .join(' ');
}

/**
 * dbt's record of its command line (run_results.json's invocation_command: its arguments joined by spaces, the
 * shell's quotes gone) for a job name, the value of every --vars hidden.
 */
export function recordedCommandLineOf(line: string): string {
  const flag = /--vars(=|\s+)/;
  let shown = '';
  let rest = line;
  for (let found = flag.exec(rest); found !== null; found = flag.exec(rest)) {
    shown += `${rest.slice(0, found.index)}--vars${found[1]}${HIDDEN_VARS}`;
    rest = rest.slice(found.index + found[0].length);
    rest = rest.slice(varsLength(rest));
  }
  return shown + rest;
}

/**
 * How long the value of --vars at the start of `text` is, the quotes that told where it ended being gone: a mapping
 * in braces runs to its closing brace (braces and ` --` inside its quoted strings aside), and one whose end cannot be
 * found to the end of the line; a value in YAML's other form runs up to the next option.
 */
function varsLength(text: string): number {
  if (!text.startsWith('{')) {
    const next = text.search(/\s--/);
    return next === -1 ? text.length : next;
  }
  return bracedLength(text, `"'`) ?? text.length;
}
