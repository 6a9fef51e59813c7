// What the commands need from the outside world, passed in so tests can run them in process with a fake clock,
// a stand-in dbt and a real or fake API.
import type { Connection, IngestInput, RetryWait } from '@jobhooks/client';
import type { IngestedEvent } from '@jobhooks/client/contract';

/** A file as read: its text, null when there is no such file, or the error code that kept it from being read. */
export type FileText = string | null | { unreadable: string };

/** How a child process ended. */
export interface ExitStatus {
  /** Its exit code, or null when a signal ended it or it never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not be started (`spawn dbt ENOENT`), or null. */
  startError: string | null;
}

export interface ChildRun {
  exited: Promise<ExitStatus>;
  kill(signal: NodeJS.Signals): void;
}

/** Posts one event; the client's `ingest`, which `signal` gives up. */
export interface EventPoster {
  ingest(
    input: IngestInput,
    how?: { signal?: AbortSignal; onRetryWait?: (wait: RetryWait) => void },
  ): Promise<IngestedEvent>;
}

export interface DbtToolIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  now(): Date;
  /** A new run id, for a run outside any recognised CI. */
  newRunId(): string;
  stdout(text: string): void;
  stderr(text: string): void;
  /** The file's text, null when it does not exist, or why it could not be read (a folder, no permission). */
  readFile(path: string): FileText;
  /** As readFile, but only the file's first `bytes` bytes (a manifest of hundreds of MB is read for its start). */
  readStart(path: string, bytes: number): FileText;
  /**
   * Starts a command with this process's standard input, output and error, in a process group of its own: a
   * terminal's Ctrl-C (sent to the whole foreground group) reaches only jobhooks-dbt, which passes it on once.
   */
  spawn(command: string, args: readonly string[]): ChildRun;
  /** A signal that aborts `ms` milliseconds from now (the clock of the posts' deadline). */
  timeout(ms: number): AbortSignal;
  /** Calls `handler` on SIGINT and SIGTERM until the returned function is called. */
  onCancel(handler: (signal: NodeJS.Signals) => void): () => void;
  poster(connection: Connection): EventPoster;
}
