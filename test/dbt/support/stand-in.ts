// A dbt project folder for a test, with the stand-in `dbt` first on PATH, and the plans that tell the stand-in what
// to write and how to end; and jobhooks-dbt itself, run as a real process the way CI runs it.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type DbtVersion, manifestOf, PLACEHOLDERS, PROJECT, runResultsOf, type Scenario } from './dbt-artifacts';

const STAND_IN = resolve(__dirname, 'stand-in-dbt.js');
export const JOBHOOKS_DBT = resolve(__dirname, '..', '..', '..', 'provider', 'dbt', 'bin', 'jobhooks-dbt.js');

export interface Plan {
  version: DbtVersion;
  scenario: Scenario;
  /**
   * `none`: dbt stops before it runs anything (a parse error) and writes no artifact; `truncated`: cut off;
   * `folder`: a folder stands where run_results.json should be, so it cannot be read.
   */
  artifacts?: 'written' | 'none' | 'truncated' | 'folder';
  /** The dbt command, for run_results.json's args. */
  command?: string[];
  /** A real run_results.json (a path) to replay as this run's, instead of the scenario's; no manifest then. */
  replay?: string;
}

export interface DbtProject {
  dir: string;
  /** The environment a run needs: PATH with the stand-in dbt first, and the plan it follows. */
  env(plan: Plan): Record<string, string>;
  close(): void;
}

let plans = 0;

export function dbtProject(): DbtProject {
  const root = mkdtempSync(join(tmpdir(), 'jobhooks-dbt-'));
  const dir = join(root, PROJECT);
  const bin = join(root, 'bin');
  mkdirSync(dir);
  mkdirSync(bin);
  // A copy, not a link: a project installed from the tarballs must not point back into the checkout.
  copyFileSync(STAND_IN, join(bin, 'dbt'));
  writeFileSync(join(dir, 'dbt_project.yml'), `name: '${PROJECT}'\nversion: '1.0.0'\nprofile: '${PROJECT}'\n`);
  return {
    dir,
    env(plan) {
      const file = join(root, `plan-${(plans += 1)}.json`);
      const written = (plan.artifacts ?? 'written') !== 'none';
      const replay = plan.replay === undefined ? null : readFileSync(plan.replay, 'utf8');
      const replayVersion =
        replay === null ? null : (JSON.parse(replay) as { metadata: { dbt_version: string } }).metadata.dbt_version;
      writeFileSync(
        file,
        JSON.stringify({
          dbtVersion: replayVersion ?? plan.version.dbtVersion,
          replay: replay !== null,
          exitCode: plan.artifacts === 'none' ? 2 : plan.scenario.exitCode,
          waitsForSignal: plan.scenario.waitsForSignal === true,
          truncated: plan.artifacts === 'truncated',
          runResultsAsFolder: plan.artifacts === 'folder',
          lines:
            plan.artifacts === 'none' ? ['Parsing Error', "  Env var required but not provided: 'DBT_PASSWORD'"] : [],
          runResults: !written
            ? null
            : (replay ?? JSON.stringify(runResultsOf(plan.version, plan.scenario.nodes, PLACEHOLDERS, plan.command))),
          manifest: written && replay === null ? JSON.stringify(manifestOf(plan.version, PLACEHOLDERS)) : null,
        }),
      );
      return { PATH: `${bin}:${process.env.PATH}`, STAND_IN_DBT_PLAN: file };
    },
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface ToolRun {
  child: ChildProcess;
  /** Resolves with the exit code and all output once the process has exited. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Resolves, with the time it happened (Date.now()), once stdout has shown `text`. */
  printed(text: string): Promise<number>;
  /** Resolves, with the time it happened (Date.now()), once stderr has shown `text`. */
  said(text: string): Promise<number>;
  /** What stdout has shown so far. */
  output(): string;
}

/** A stream's text so far, and waits for a text to show up in it. */
function watched() {
  let text = '';
  const waiting: Array<{ text: string; resolve: (at: number) => void }> = [];
  return {
    text: () => text,
    add(chunk: Buffer) {
      text += chunk.toString();
      const now = Date.now();
      for (const wait of waiting.filter((w) => text.includes(w.text))) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve(now);
      }
    },
    until: (wanted: string) =>
      text.includes(wanted)
        ? Promise.resolve(Date.now())
        : new Promise<number>((resolve) => waiting.push({ text: wanted, resolve })),
  };
}

/**
 * Runs `jobhooks-dbt ARGS` in `cwd` with only PATH, HOME and `env`, as a CI step would; `foreground` puts it in a
 * process group of its own, as a shell does a command on a terminal (a Ctrl-C there signals the whole group).
 */
export function runTool(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  options: { foreground?: boolean } = {},
): ToolRun {
  const child = spawn(process.execPath, [JOBHOOKS_DBT, ...args], {
    cwd,
    env: { HOME: process.env.HOME ?? '/', PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.foreground === true,
  });
  const [stdout, stderr] = [watched(), watched()];
  child.stdout!.on('data', stdout.add);
  child.stderr!.on('data', stderr.add);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveDone) =>
    child.on('close', (code) => resolveDone({ code, stdout: stdout.text(), stderr: stderr.text() })),
  );
  return { child, done, printed: stdout.until, said: stderr.until, output: stdout.text };
}
