// Runs the built `jobhooks-as-code` binary as a user's shell or CI does: its own process, no terminal, and only
// the environment given (nothing of this machine's JOBHOOKS_* or DBT_CLOUD_* variables).
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

export const AS_CODE_BIN = resolve(__dirname, '..', '..', 'provider', 'as-code', 'bin', 'jobhooks-as-code.js');

export interface AsCodeRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runAsCode(
  args: string[],
  options: { cwd: string; env: Record<string, string>; bin?: string },
): Promise<AsCodeRun> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env };
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [options.bin ?? AS_CODE_BIN, ...args],
      { cwd: options.cwd, env },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        done({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}
