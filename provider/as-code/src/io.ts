// What the commands need from the outside world, passed in so tests can run them in process.
export interface CliIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when a person can answer a question: standard input and output are both terminals. */
  interactive: boolean;
  /** Asks on the terminal and resolves with the answer. */
  ask(question: string): Promise<string>;
}
