// A failure the user of a command-line tool can act on, shown as its one-line message (no stack trace), and the
// exit code it ends the command with. Every jobhooks command-line tool (jobhooks-as-code, jobhooks-dbt) throws it.
export class CliError extends Error {
  constructor(
    message: string,
    /** The exit code: 1 for an error; each tool documents the others it uses (2 for bad usage, or for changes pending). */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
