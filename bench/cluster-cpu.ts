// Where a PostgreSQL cluster's CPU goes while a run lasts, by kind of process: the clients' backends (the
// statements the instances send), autovacuum, the WAL writer, checkpoints (the checkpointer and the background
// writer), and the rest. The cluster's children are read from /proc every 100 ms, so a process that exits meanwhile
// (a pooled connection closed when idle, an autovacuum worker done with its table) keeps nearly all it used; a
// process that lived between two readings is counted in the rest, from the postmaster's total for its children.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type ProcessKind = 'clients' | 'autovacuum' | 'walWriter' | 'checkpoints' | 'rest';
export type CpuByKind = Record<ProcessKind, number>;

const SAMPLE_MS = 100;

/** Clock ticks per second of /proc's CPU times. */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** The kind of a PostgreSQL process, by the title it gives itself ("postgres: <user> <database> <host> ..." for a client's). */
function kindOf(title: string): ProcessKind {
  if (title.startsWith('postgres: autovacuum')) return 'autovacuum';
  if (title.startsWith('postgres: walwriter')) return 'walWriter';
  if (/^postgres: (checkpointer|background writer)/.test(title)) return 'checkpoints';
  if (/^postgres: \S+ \S+ (\[local\]|\d)/.test(title)) return 'clients';
  return 'rest';
}

interface Stat {
  /** utime + stime: fields 14 and 15 of /proc/PID/stat. */
  own: number;
  /** cutime + cstime: fields 16 and 17, the children that have exited. */
  children: number;
  ppid: number;
}

function statOf(pid: number | string): Stat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field n is fields[n - 3]: the split starts at field 3, after the command's parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const field = (n: number) => Number(fields[n - 3]);
    return { own: field(14) + field(15), children: field(16) + field(17), ppid: field(4) };
  } catch {
    return null; // exited meanwhile
  }
}

function titleOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Starts sampling the cluster whose data folder is `dataDir`; `stop` returns the CPU seconds of each kind since. */
export function sampleClusterCpu(dataDir: string): { stop(): CpuByKind } {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const first = statOf(postmaster);
  if (first === null) throw new Error('the benchmark cluster is not running');
  /** Each child's kind, its ticks when first seen (0 when it started during the run) and when last seen. */
  const seen = new Map<string, { kind: ProcessKind; from: number; last: number }>();
  const read = (starting: boolean) => {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = statOf(pid);
      if (stat?.ppid !== postmaster) continue;
      const known = seen.get(pid);
      if (known) known.last = stat.own;
      else seen.set(pid, { kind: kindOf(titleOf(pid)), from: starting ? stat.own : 0, last: stat.own });
    }
  };
  read(true);
  const timer = setInterval(() => read(false), SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      read(false);
      const last = statOf(postmaster) ?? first;
      const ticks: CpuByKind = { clients: 0, autovacuum: 0, walWriter: 0, checkpoints: 0, rest: 0 };
      for (const { kind, from, last: to } of seen.values()) ticks[kind] += to - from;
      // The postmaster's own, and what exited children used that no reading saw.
      const exited = last.children - first.children;
      const sampledExited = [...seen].filter(([pid]) => statOf(pid)?.ppid !== postmaster);
      const sampledExitedTicks = sampledExited.reduce((sum, [, s]) => sum + s.last, 0);
      ticks.rest += last.own - first.own + Math.max(0, exited - sampledExitedTicks);
      const seconds = (n: number) => n / TICKS_PER_SECOND;
      return {
        clients: seconds(ticks.clients),
        autovacuum: seconds(ticks.autovacuum),
        walWriter: seconds(ticks.walWriter),
        checkpoints: seconds(ticks.checkpoints),
        rest: seconds(ticks.rest),
      };
    },
  };
}
