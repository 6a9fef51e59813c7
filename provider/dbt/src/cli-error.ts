// A failure the user can act on, shown as its one-line message (no stack trace).
export class CliError extends Error {
  constructor(
    message: string,
    /** 2 for a command line that cannot be run (as dbt uses 2 for an error it did not expect), 1 otherwise. */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
