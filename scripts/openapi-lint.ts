// `npm run lint:openapi [-- FILE]`: lints the OpenAPI document that GET /api/openapi.json serves with Redocly CLI,
// under redocly.yaml at the root. The service is built in-process on a temporary database and asked for the document
// (nothing listens); the document goes to a temporary file, or to FILE when one is named (kept there). Exits 1 on any
// error or warning. test/http/openapi.test.ts runs the same lint on the document a test service serves.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { loadConfig } from '../service/src/config';
import { createService } from '../service/src/wiring';

const ROOT = resolve(__dirname, '..');
export const REDOCLY_CONFIG = join(ROOT, 'redocly.yaml');
const REDOCLY_CLI = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

export interface LintResult {
  errors: number;
  warnings: number;
  problems: LintProblem[];
}

/** The document the service serves, from a service built for the moment on a temporary database. */
export async function servedOpenApiDocument(): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'jobhooks-openapi-'));
  try {
    const config = loadConfig({ JOBHOOKS_DB: join(dir, 'jobhooks.db'), LOG_LEVEL: 'silent' });
    const service = await createService(config, { logger: false });
    try {
      const response = await service.app.inject({ method: 'GET', url: '/api/openapi.json' });
      if (response.statusCode !== 200) throw new Error(`GET /api/openapi.json answered ${response.statusCode}`);
      return response.json();
    } finally {
      await service.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `redocly lint` with redocly.yaml on `document`, written to `file` (a temporary file when none is named). */
export function lintOpenApi(document: unknown, file?: string): LintResult {
  const dir = file === undefined ? mkdtempSync(join(tmpdir(), 'jobhooks-openapi-')) : null;
  const path = file ?? join(dir!, 'openapi.json');
  try {
    writeFileSync(path, `${JSON.stringify(document, null, 2)}\n`);
    const run = spawnSync(
      process.execPath,
      [REDOCLY_CLI, 'lint', path, '--config', REDOCLY_CONFIG, '--format', 'json'],
      {
        encoding: 'utf8',
        // No telemetry, no update check: the lint reads only the file and the config.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    let report: { totals: { errors: number; warnings: number }; problems: LintProblem[] };
    try {
      report = JSON.parse(run.stdout);
    } catch {
      throw new Error(`redocly lint gave no report (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
    }
    return { errors: report.totals.errors, warnings: report.totals.warnings, problems: report.problems };
  } finally {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  }
}

/** One line a problem: severity, rule, where and what. */
export function describeProblems(result: LintResult): string {
  return result.problems
    .map((p) => `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer).join(', ')}: ${p.message}`)
    .join('\n');
}

async function main(): Promise<void> {
  const file = process.argv[2];
  const result = lintOpenApi(await servedOpenApiDocument(), file === undefined ? undefined : resolve(file));
  if (result.problems.length > 0) console.log(describeProblems(result));
  console.log(
    `redocly lint (${REDOCLY_CONFIG}) of GET /api/openapi.json${file === undefined ? '' : ` written to ${file}`}: ` +
      `${result.errors} errors, ${result.warnings} warnings`,
  );
  if (result.errors + result.warnings > 0) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
