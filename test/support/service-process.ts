// Runs `jobhooks start` as a real child process on a given database, for tests of start-up, signals and crashes.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const BIN = resolve(__dirname, '..', '..', 'service', 'bin', 'jobhooks.js');

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** The API base URL it printed, ending in /api. */
  baseUrl: string;
  /** Sends a signal and resolves with the exit code (null when killed by the signal). */
  signal(signal: NodeJS.Signals): Promise<number | null>;
}

/** Children started and not yet exited. */
const running = new Set<ChildProcess>();

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * Kills (SIGKILL) every service process a test started and did not stop, and waits for each to exit. A test
 * that fails before its own SIGTERM would otherwise leave the process running, and jest waiting on its pipes.
 */
export async function stopServiceProcesses(): Promise<void> {
  const left = [...running].filter((child) => !hasExited(child));
  running.clear();
  await Promise.all(
    left.map(
      (child) =>
        new Promise<void>((resolveExit) => {
          child.once('exit', () => resolveExit());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/**
 * Starts the service on a free port and resolves once it has printed its start-up message (database line last).
 * `nodeFlags` go to node itself, e.g. the benchmark's `--cpu-prof`.
 */
export function startServiceProcess(env: Record<string, string>, nodeFlags: readonly string[] = []): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'start'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  return new Promise((resolveStart, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API base URL \(host_url for clients\): (\S+)/.exec(output);
      if (match && /Database: .*\n/.test(output)) {
        resolveStart({
          child,
          output: () => output,
          baseUrl: match[1]!,
          signal: (signal) => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`exited ${code} before starting: ${output}`)));
  });
}
