// A failure the user can act on, shown as its one-line message (no stack trace).
export class CliError extends Error {
  constructor(
    message: string,
    /** 1 for an error; 2 only for `plan --detailed-exitcode`'s "changes pending". */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
