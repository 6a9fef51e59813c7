// `--perf=DIR`: a Linux `perf` profile of the service's main thread during the measured delivery run, native code
// included (SQLite, V8's runtime, the kernel), which the V8 profile of `--profile` does not split out. The service
// then runs with --perf-basic-prof, so perf can name its compiled JavaScript too.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

/** Stops the recording and resolves once perf has written its file. */
export type StopRecording = () => Promise<void>;

/** Fails with one sentence when the machine has no `perf`, before any service starts. */
export function checkPerfInstalled(): void {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('--perf needs the `perf` command (Debian: apt-get install -y linux-perf).');
  }
}

/** Samples thread `tid` 2,000 times a second into DIR/NAME.perf.data until stopped. */
export async function recordThread(tid: number, directory: string, name: string): Promise<StopRecording> {
  const file = join(directory, `${name}.perf.data`);
  const perf: ChildProcess = spawn('perf', ['record', '--quiet', '-F', '2000', '-t', String(tid), '-o', file], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => perf.once('exit', () => resolve()));
  // A moment for perf to attach, so the recording covers the run from its start.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return async () => {
    perf.kill('SIGINT');
    await exited;
    process.stderr.write(
      `perf profile of the service's main thread: ${file}\n` +
        `  by library: perf report -i ${file} --no-children --sort dso --stdio\n` +
        `  by function: perf report -i ${file} --no-children --sort dso,sym --stdio\n`,
    );
  };
}
