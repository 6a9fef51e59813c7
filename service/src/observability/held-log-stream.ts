// The logger's destination while the service starts: JSON lines are held until the start-up text for a person is
// out, so at a terminal that text is one block and no log line lands inside it; logs stay JSON lines for machines.

/** What pino writes to: one JSON line (with its newline) per call. */
export interface LogStream {
  write(line: string): void;
}

export interface HeldLogStream extends LogStream {
  /** Writes what was held, in order, and every later line straight through. Idempotent. */
  release(): void;
}

/** Past this many held lines (a start that logs a lot while it waits), they go out rather than grow without bound. */
export const MAX_HELD_LOG_LINES = 1000;

export function createHeldLogStream(write: (line: string) => void, maxHeld = MAX_HELD_LOG_LINES): HeldLogStream {
  let held: string[] | null = [];
  const release = () => {
    if (held === null) return;
    const lines = held;
    held = null;
    if (lines.length > 0) write(lines.join(''));
  };
  return {
    write(line) {
      if (held === null) return write(line);
      held.push(line);
      if (held.length >= maxHeld) release();
    },
    release,
  };
}
