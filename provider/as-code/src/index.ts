// @jobhooks/as-code: webhooks declared in YAML, validated, planned and applied with no state file. The command line
// is `jobhooks-as-code` (cli.ts); the steps are exported for programs that want them without it.
import { createInterface } from 'node:readline/promises';
import { runCli } from './cli';
import type { CliIo } from './io';

export { runCli, USAGE } from './cli';
export type { CliIo } from './io';
export { DeclaredWebhook, webhooksFileJsonSchema, WebhooksFile } from './declaration';
export { type Declaration, type DeclaredEntry, loadDeclarations } from './load-declarations';
export { markedName, type Marker, markerKey, readMarker } from '@jobhooks/client/contract';
export { type FieldChange, type Plan, type PlannedChange, planChanges, type PlanWarning } from './plan';
export { applyChanges, type ApplyProgress, ChangeFailed } from './apply';
export { formatProblem, type Problem } from './problem';

/** The `jobhooks-as-code` binary: the process's arguments, streams and terminal. */
export function runFromProcess(): void {
  const io: CliIo = {
    cwd: process.cwd(),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
    async ask(question) {
      const terminal = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return await terminal.question(question);
      } catch {
        // Ctrl-C or Ctrl-D instead of an answer: that is not a "yes".
        return '';
      } finally {
        terminal.close();
      }
    },
  };
  // `plan --json | head`: the reader has gone, and there is no one left to tell.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  runCli(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A bug, not a user's mistake: the stack helps the report.
      process.stderr.write(
        `jobhooks-as-code: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
