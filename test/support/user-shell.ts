// A user's shell for the package tests: their own HOME (whose ~/.npmrc names the registry of the @jobhooks scope),
// a global npm prefix whose bin/ is on PATH, nothing of jest's or npm's own environment, no Terraform CLI
// configuration; commands run there, and the install warnings a user must not see.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type CommandOutcome, runCommand } from './run-command';

const run = promisify(execFile);

/** npm's cache of this machine, kept while HOME changes: registry packages come from it, not the network. */
const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();

/**
 * This process's environment less what npm and npx set for the scripts they run (npm_config_userconfig would
 * hide the user's ~/.npmrc); npm_config_nodedir stays, since CI sets it for Node 22's headers.
 */
const shellEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || key.toLowerCase() === 'npm_config_nodedir'),
  );

export function write(file: string, text: string): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
}

/** The warnings a user must not see: an engine, a peer or a deprecation in the tree installed. */
export function installWarnings(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => /^npm warn/i.test(line) && /EBADENGINE|ERESOLVE|deprecated|peer/i.test(line));
}

export interface UserShell {
  home: string;
  /** Where `npm install --global` puts packages. */
  globalPrefix: string;
  /** Runs a command in the user's shell; throws with its output unless it exits 0. */
  sh(
    command: string,
    args: string[],
    cwd: string,
    env?: NodeJS.ProcessEnv,
  ): Promise<{ stdout: string; stderr: string }>;
  /**
   * Runs a command as CI does, with only PATH, HOME and the variables given, and resolves with its exit code
   * (where `sh` throws on any but 0).
   */
  shExit(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<CommandOutcome>;
  /** `npm install` in a project: @jobhooks/* from the test registry, the rest from npm's cache where it can. */
  npmInstall(dir: string): Promise<{ stdout: string; stderr: string }>;
}

/** A user whose home and global prefix are folders under root, installing @jobhooks/* from the registry. */
export function createUserShell(root: string, registry: string): UserShell {
  const home = join(root, 'home');
  const globalPrefix = join(root, 'global');
  write(join(home, '.npmrc'), `@jobhooks:registry=${registry}\n`);
  // Their HOME and PATH, no Terraform CLI configuration of any kind (the machine's TF_CLI_CONFIG_FILE is not
  // the user's), no telemetry.
  const userEnv = (): NodeJS.ProcessEnv => ({
    ...shellEnv(),
    HOME: home,
    PATH: `${join(globalPrefix, 'bin')}:${process.env.PATH}`,
    npm_config_cache: NPM_CACHE,
    TF_CLI_CONFIG_FILE: undefined,
    CHECKPOINT_DISABLE: '1',
  });
  const sh: UserShell['sh'] = async (command, args, cwd, env = {}) => {
    try {
      return await run(command, args, { cwd, env: { ...userEnv(), ...env }, maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      const failed = error as Error & { stdout?: string; stderr?: string };
      throw new Error(
        `${command} ${args.join(' ')} failed in ${cwd}: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`,
      );
    }
  };
  const shExit: UserShell['shExit'] = (command, args, cwd, env) =>
    runCommand(command, args, cwd, { PATH: process.env.PATH, HOME: home, npm_config_cache: NPM_CACHE, ...env });
  const npmInstall = (dir: string) => sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], dir);
  return { home, globalPrefix, sh, shExit, npmInstall };
}
