// @jobhooks/dbt: the `jobhooks-dbt` command (run dbt Core, post dbt Cloud's job-run events) and its pure parts, for
// programs that report runs themselves. This file wires the real process, clock, files and API client.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createWebhooksClient } from '@jobhooks/client';
import { runCli } from './cli';
import type { ChildRun, DbtToolIo, ExitStatus, FileText } from './io';

export { readManifest, readRunResults, stalenessOf, type RunResults } from './artifacts';
export { type CiRun, detectCi, runIdOf } from './ci-run';
export { runCli, USAGE } from './cli';
export type { DbtToolIo, EventPoster } from './io';
export { endEvents, type RunIdentity, startedEvent } from './run-events';
export { failuresMessage, outcomeOf, RUN_STATUS } from './run-outcome';

/** What `read` gives; a file that is not there is null, and any other failure (EISDIR, EACCES) its code, to be said. */
function readingFile(read: () => string): FileText {
  try {
    return read();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    return { unreadable: code ?? (error as Error).message };
  }
}

const readText = (path: string): FileText => readingFile(() => readFileSync(path, 'utf8'));

/** The file's first `bytes` bytes as text (a character cut at the end is replaced, as the end is not read anyway). */
const readTextStart = (path: string, bytes: number): FileText =>
  readingFile(() => {
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(bytes);
      return buffer.toString('utf8', 0, readSync(fd, buffer, 0, bytes, 0));
    } finally {
      closeSync(fd);
    }
  });

function spawnInherited(command: string, args: readonly string[]): ChildRun {
  // A process group of its own (see DbtToolIo.spawn); on Windows, where detached means a console window of its own
  // and a Ctrl-C is not a group signal, dbt stays in this console.
  const child = spawn(command, args, { stdio: 'inherit', detached: process.platform !== 'win32' });
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, startError: error.message }));
    child.once('exit', (code, signal) => resolve({ code, signal, startError: null }));
  });
  return { exited, kill: (signal) => void child.kill(signal) };
}

/**
 * The signals that cancel a run, each passed on to dbt (once) by the run command. SIGHUP too: dbt runs in a session
 * of its own, so a closed terminal or a dropped SSH connection reaches it only through jobhooks-dbt.
 */
function onCancel(handler: (signal: NodeJS.Signals) => void): () => void {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}

export function processIo(): DbtToolIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    now: () => new Date(),
    newRunId: () => randomUUID(),
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    readFile: readText,
    readStart: readTextStart,
    spawn: spawnInherited,
    onCancel,
    timeout: (ms) => AbortSignal.timeout(ms),
    // Four attempts, each waiting at most 30 s for an answer, with about 3.5 s of backoff between them: a server
    // that refuses connections costs seconds, but one that hangs could cost minutes per event. What bounds the
    // posts after the run is their deadline (--post-timeout, 30 s by default), for all of them together.
    poster: (connection) =>
      createWebhooksClient({
        hostUrl: connection.hostUrl,
        accountId: connection.accountId,
        token: connection.token,
        maxAttempts: 4,
        maxRetryDelayMs: 30_000,
        timeoutMs: 30_000,
      }),
  };
}

/** The `jobhooks-dbt` program: runs the command line of this process and exits with its code. */
export function runFromProcess(): void {
  // A terminal closed (EIO) or a reader gone (EPIPE) fails writes to stdout and stderr, as an error event that
  // would otherwise end the process: dbt's end would then go unreported, and its exit code be lost. What is not
  // shown any more is not worth that.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  runCli(process.argv.slice(2), processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`jobhooks-dbt: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 70;
    },
  );
}
