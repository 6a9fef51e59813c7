// Runs `jobhooks start` as a real child process on a given database, for tests of start-up, signals and crashes.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const BIN = resolve(__dirname, '..', '..', 'service', 'bin', 'jobhooks.js');

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** What it wrote to stdout alone so far. */
  stdout(): string;
  /** The API base URL it printed, ending in /api. */
  baseUrl: string;
  /** Sends a signal and resolves with the exit code (null when killed by the signal). */
  signal(signal: NodeJS.Signals): Promise<number | null>;
}

/** Children started and not yet exited. */
const running = new Set<ChildProcess>();

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Children started through a wrapper (npx) lead a process group of their own, so a signal reaches the service too. */
const groupLeaders = new WeakSet<ChildProcess>();

function sendSignal(child: ChildProcess, signal: NodeJS.Signals): void {
  if (groupLeaders.has(child) && child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
      return;
    } catch {
      // The group is gone already; fall through to the child itself.
    }
  }
  child.kill(signal);
}

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
          sendSignal(child, 'SIGKILL');
        }),
    ),
  );
}

/** How to start it when not this checkout's `node service/bin/jobhooks.js start` (an installed package, say). */
export interface StartCommand {
  command: string;
  args: readonly string[];
  cwd?: string;
}

/**
 * Starts the service on a free port and resolves once it has printed its start-up message (database line last).
 * `nodeFlags` go to node itself, e.g. the benchmark's `--cpu-prof`.
 */
export function startServiceProcess(
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
  start?: StartCommand,
): Promise<ServiceProcess> {
  const { command, args, cwd } = start ?? { command: process.execPath, args: [...nodeFlags, BIN, 'start'] };
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A wrapper's child would outlive a signal to the wrapper alone (and hold the pipes open).
    detached: start !== undefined,
  });
  if (start !== undefined) groupLeaders.add(child);
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  let stdout = '';
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  return new Promise((resolveStart, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      stdout += chunk.toString();
      const match = /API base URL \(host_url for clients\): (\S+)/.exec(output);
      if (match && /Database: .*\n/.test(output)) {
        resolveStart({
          child,
          output: () => output,
          stdout: () => stdout,
          baseUrl: match[1]!,
          signal: (signal) => {
            sendSignal(child, signal);
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
