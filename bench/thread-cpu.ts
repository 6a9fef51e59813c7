// `--threads`: where the machine's CPU went during a measured step, from /proc: each thread of the service
// process (its main thread, then the others by CPU used: the sender thread and V8's helpers), the bench's own
// process (load generator and receiver), how much of the machine stayed idle, and how long the service's main
// thread was ready to run but waited for a core (the scheduler's run-queue wait, /proc/PID/task/TID/schedstat).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times. */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** utime + stime of a /proc stat line (fields 14 and 15, after the command's parentheses). */
function ticksOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[14 - 3]) + Number(fields[15 - 3]);
}

function threadTicks(pid: number): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ticks.set(Number(tid), ticksOfStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // the thread ended meanwhile
    }
  }
  return ticks;
}

/** Nanoseconds the thread has waited in the run queue: ready to run, without a core (schedstat's second field). */
function runQueueWaitNs(pid: number, tid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return 0; // a kernel without schedstats
  }
}

/** All CPUs' busy and idle ticks, from the first line of /proc/stat (idle and iowait count as idle). */
function machineTicks(): { busy: number; idle: number } {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const numbers = values.map(Number);
  const idle = numbers[3]! + numbers[4]!;
  return { busy: numbers.reduce((sum, n) => sum + n, 0) - idle, idle };
}

export interface ThreadCpu {
  seconds: number;
  /** CPU seconds per second of the service's main thread. */
  serviceMain: number;
  /** Seconds per second the main thread was ready to run but waited for a core. */
  serviceMainWaiting: number;
  /** The service's other threads with at least 0.02 CPU seconds per second, busiest first. */
  serviceOthers: number[];
  /** The whole service process. */
  service: number;
  /** This (the bench's) process: load generator and receiver. */
  bench: number;
  /** The machine's idle CPU seconds per second (of `cores`). */
  idle: number;
  /** The share of the machine's CPU that was busy, every process's, from 0 to 1, unrounded (ratioAtFullCores). */
  busyShare: number;
  cores: number;
}

/** CPU seconds a whole process (every thread) has used so far. */
export function processCpuSeconds(pid: number): number {
  return ticksOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8')) / TICKS_PER_SECOND;
}

/** Starts counting; the function it returns reads the CPU used since, per second of wall time. */
export function countThreadCpu(servicePid: number): () => ThreadCpu {
  const started = performance.now();
  const service = threadTicks(servicePid);
  const bench = threadTicks(process.pid);
  const machine = machineTicks();
  const mainWaited = runQueueWaitNs(servicePid, servicePid);
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const perSecond = (ticks: number) => Number((ticks / TICKS_PER_SECOND / seconds).toFixed(2));
    const serviceNow = threadTicks(servicePid);
    const used = (before: Map<number, number>, after: Map<number, number>) =>
      [...after].map(([tid, ticks]) => ({ tid, ticks: ticks - (before.get(tid) ?? 0) }));
    const serviceUsed = used(service, serviceNow);
    const others = serviceUsed
      .filter(({ tid }) => tid !== servicePid)
      .map(({ ticks }) => perSecond(ticks))
      .filter((share) => share >= 0.02)
      .sort((a, b) => b - a);
    const machineNow = machineTicks();
    const busy = machineNow.busy - machine.busy;
    const idle = machineNow.idle - machine.idle;
    const cores = (busy + idle) / TICKS_PER_SECOND / seconds;
    return {
      seconds: Number(seconds.toFixed(1)),
      serviceMain: perSecond(serviceUsed.find(({ tid }) => tid === servicePid)?.ticks ?? 0),
      serviceMainWaiting: Number(((runQueueWaitNs(servicePid, servicePid) - mainWaited) / 1e9 / seconds).toFixed(2)),
      serviceOthers: others,
      service: perSecond(serviceUsed.reduce((sum, { ticks }) => sum + ticks, 0)),
      bench: perSecond(used(bench, threadTicks(process.pid)).reduce((sum, { ticks }) => sum + ticks, 0)),
      idle: perSecond(idle),
      busyShare: busy + idle > 0 ? busy / (busy + idle) : 0,
      cores: Math.round(cores),
    };
  };
}

/** `units`: what the step did (deliveries, requests), to give each side's CPU per unit as well. */
export function threadCpuLine(step: string, cpu: ThreadCpu, units?: { count: number; name: string }): string {
  const perUnit = (share: number) =>
    units === undefined ? '' : ` = ${((share * cpu.seconds * 1e6) / units.count).toFixed(0)} us per ${units.name}`;
  return (
    `CPU during ${step} (${cpu.seconds} s; CPU seconds per second, of ${cpu.cores} cores): ` +
    `service ${cpu.service}${perUnit(cpu.service)} (main thread ${cpu.serviceMain}${perUnit(cpu.serviceMain)}, ` +
    `and ${cpu.serviceMainWaiting} waiting for a core; other threads ${cpu.serviceOthers.join(' ') || 'none'}), ` +
    `bench ${cpu.bench}${perUnit(cpu.bench)}, machine idle ${cpu.idle}\n`
  );
}

/**
 * The ratio a delivery run would have had with every core of the machine busy at the CPU per delivery it used (all
 * of the machine's: the service's, the database's, the bench's): its ratio over the share of the machine's CPU the
 * run kept busy; null when the reading saw no busy CPU. Above a target, what the run missed was cores left idle
 * (threads waiting for each other); below it, the machine's CPU per delivery alone is too high for it, however the
 * threads were scheduled. Only the run's side is scaled: the ceiling, one process, keeps about one core busy.
 */
export function ratioAtFullCores(ratio: number, cpu: ThreadCpu): number | null {
  return cpu.busyShare <= 0 ? null : Number((ratio / cpu.busyShare).toFixed(3));
}

/** `<prefix>_ratio_at_full_cores` as a figure when `--threads` read the run (`cpu`) and it saw busy CPU; else none. */
export function fullCoresFigure(prefix: string, ratio: number, cpu: ThreadCpu | null): Record<string, number> {
  const atFullCores = cpu === null ? null : ratioAtFullCores(ratio, cpu);
  return atFullCores === null ? {} : { [`${prefix}_ratio_at_full_cores`]: atFullCores };
}

/** `   <prefix>_ratio_at_full_cores <value>`, for a summary line, when the figures hold it; else nothing. */
export function fullCoresNote(figures: Readonly<Record<string, number>>, prefix: string): string {
  const name = `${prefix}_ratio_at_full_cores`;
  return figures[name] === undefined ? '' : `   ${name} ${figures[name]}`;
}
