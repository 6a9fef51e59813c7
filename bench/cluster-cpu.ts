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
export const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** The kind of a PostgreSQL process, by the title it gives itself ("postgres: <user> <database> <host> ..." for a client's). */
function kindOf(title: string): ProcessKind {
  if (title.startsWith('postgres: autovacuum')) return 'autovacuum';
  if (title.startsWith('postgres: walwriter')) return 'walWriter';
  if (/^postgres: (checkpointer|background writer)/.test(title)) return 'checkpoints';
  if (/^postgres: \S+ \S+ (\[local\]|\d)/.test(title)) return 'clients';
  return 'rest';
}

export interface Stat {
  /** utime + stime: fields 14 and 15 of /proc/PID/stat. */
  own: number;
  /** cutime + cstime: fields 16 and 17, the children that have exited. */
  children: number;
  ppid: number;
  /** When the process started (field 22): with the pid, it names one process, as pids are reused. */
  startTime: number;
}

/** A process's CPU ticks and parent, or null once it has exited. */
export function statOf(pid: number | string): Stat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field n is fields[n - 3]: the split starts at field 3, after the command's parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const field = (n: number) => Number(fields[n - 3]);
    return { own: field(14) + field(15), children: field(16) + field(17), ppid: field(4), startTime: field(22) };
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
  /**
   * Each child (by pid and start time), its kind, its ticks when first seen (0 when it started during the run) and
   * when last seen. A kind of "rest" is looked at again: a backend may not have titled itself yet.
   */
  const seen = new Map<string, { pid: string; startTime: number; kind: ProcessKind; from: number; last: number }>();
  const read = (starting: boolean) => {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = statOf(pid);
      if (stat?.ppid !== postmaster) continue;
      const key = `${pid}@${stat.startTime}`;
      const known = seen.get(key);
      if (known === undefined)
        seen.set(key, {
          pid,
          startTime: stat.startTime,
          kind: kindOf(titleOf(pid)),
          from: starting ? stat.own : 0,
          last: stat.own,
        });
      else {
        known.last = stat.own;
        if (known.kind === 'rest') known.kind = kindOf(titleOf(pid));
      }
    }
  };
  read(true);
  // Unref'd: a run that fails does not keep the process alive for it.
  const timer = setInterval(() => read(false), SAMPLE_MS).unref();
  return {
    stop() {
      clearInterval(timer);
      read(false);
      const ticks: CpuByKind = { clients: 0, autovacuum: 0, walWriter: 0, checkpoints: 0, rest: 0 };
      for (const { kind, from, last: to } of seen.values()) ticks[kind] += to - from;
      // The children seen that have exited, read between two readings of the postmaster that agree, so that none
      // is reaped in between: their whole lives are in its children's ticks, of which the readings saw `last`.
      let last: Stat;
      let goneTicks: number;
      do {
        last = statOf(postmaster) ?? first;
        goneTicks = [...seen.values()]
          .filter(({ pid, startTime }) => {
            const now = statOf(pid);
            return now === null || now.ppid !== postmaster || now.startTime !== startTime;
          })
          .reduce((sum, { last: seenLast }) => sum + seenLast, 0);
      } while ((statOf(postmaster) ?? first).children !== last.children);
      // The postmaster's own, and what exited children used that no reading saw.
      ticks.rest += last.own - first.own + Math.max(0, last.children - first.children - goneTicks);
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
