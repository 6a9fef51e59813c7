// Reading dbt's artifacts: the parts of target/run_results.json (run-results v4 to v6, dbt Core 1.5 to 1.10 and dbt
// Fusion) and target/manifest.json (manifest v9 to v12) that a job-run event needs, each problem as one sentence.
// Only those parts are checked, and loosely: a newer dbt adds fields, and the run must still be reported.
import { bracedLength } from './braced-text';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { FileText } from './io';

const Timestamp = z.string().nullish();

const NodeResult = z.object({
  unique_id: z.string(),
  // Fusion has written some statuses capitalised ("Pass"); dbt Core writes them in lower case.
  status: z.string().transform((status) => status.toLowerCase()),
  message: z.string().nullish(),
  failures: z.number().nullish(),
});

const RunResultsFile = z.object({
  metadata: z.object({
    dbt_schema_version: z.string(),
    dbt_version: z.string().optional(),
    generated_at: Timestamp,
    invocation_id: z.string().nullish(),
    // dbt 1.10 and later.
    invocation_started_at: Timestamp,
  }),
  results: z.array(NodeResult),
  elapsed_time: z.number(),
  args: z.record(z.string(), z.unknown()).optional(),
});

const ManifestFile = z.object({
  metadata: z.object({
    // dbt 1.6 and later; 1.5 writes only the id, an MD5 of the name.
    project_name: z.string().nullish(),
    project_id: z.string().nullish(),
  }),
});

export type NodeResult = z.output<typeof NodeResult>;

/** What a job-run event takes from run_results.json. */
export interface RunResults {
  schemaVersion: number;
  dbtVersion: string;
  /** When dbt wrote the file: the end of the run. */
  generatedAt: Date;
  /** When the invocation started, as dbt recorded it, or as its elapsed time gives it. */
  startedAt: Date;
  invocationId: string | null;
  results: NodeResult[];
  /** The invocation's arguments (`which`, `target`, `invocation_command`, ...), as dbt wrote them. */
  args: Record<string, unknown>;
}

export interface ProjectInfo {
  projectName: string;
  projectId: string;
}

export type Reading<T> = { ok: true; value: T } | { ok: false; problem: string };

/** The oldest and newest run-results schema this reader was written against. */
export const RUN_RESULTS_VERSIONS = { oldest: 4, newest: 6 } as const;

/** dbt writes UTC times, some versions without a zone: read those as UTC. */
function utc(text: string | null | undefined): Date | null {
  if (text === null || text === undefined) return null;
  const zoned = /(?:Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`;
  const date = new Date(zoned);
  return Number.isNaN(date.getTime()) ? null : date;
}

function parsedJson(text: string, path: string): Reading<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, problem: `${path} is not valid JSON (a run cut off while dbt wrote it?).` };
  }
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue === undefined
    ? 'it does not have the expected shape'
    : `${issue.path.join('.') || 'the file'}: ${issue.message}`;
}

/** The text of a file that was read, or null when it is missing or could not be read. */
export const textOf = (file: FileText): string | null => (typeof file === 'string' ? file : null);

/** run_results.json as read (see FileText) as the run it describes, or a sentence saying why not. */
export function readRunResults(file: FileText, path: string): Reading<RunResults> {
  if (file === null) return { ok: false, problem: `dbt wrote no ${path}, so the results of the run are unknown.` };
  if (typeof file === 'object')
    return { ok: false, problem: `cannot read ${path} (${file.unreadable}), so the results of the run are unknown.` };
  const text = file;
  const json = parsedJson(text, path);
  if (!json.ok) return json;
  const parsed = RunResultsFile.safeParse(json.value);
  if (!parsed.success)
    return { ok: false, problem: `${path} is not a dbt run_results.json (${firstIssue(parsed.error)}).` };
  const { metadata } = parsed.data;
  const version = /\/run-results\/v(\d+)\.json$/.exec(metadata.dbt_schema_version);
  if (version === null)
    return {
      ok: false,
      problem: `${path} is not a dbt run_results.json (its dbt_schema_version is "${metadata.dbt_schema_version}").`,
    };
  const generatedAt = utc(metadata.generated_at);
  if (generatedAt === null)
    return { ok: false, problem: `${path} has no readable generated_at, so when the run ended is unknown.` };
  const startedAt =
    utc(metadata.invocation_started_at) ??
    new Date(Math.round(generatedAt.getTime() - parsed.data.elapsed_time * 1000));
  return {
    ok: true,
    value: {
      schemaVersion: Number(version[1]),
      dbtVersion: metadata.dbt_version ?? '',
      generatedAt,
      startedAt,
      invocationId: metadata.invocation_id ?? null,
      results: parsed.data.results,
      args: parsed.data.args ?? {},
    },
  };
}

/** dbt's project id: the MD5 of the project's name, as dbt writes it into the manifest. */
export const projectIdOf = (projectName: string): string => createHash('md5').update(projectName).digest('hex');

/**
 * How much of manifest.json is read: its `metadata`, which dbt writes first, is all a run's events take from it. A
 * large project's manifest runs to hundreds of MB, which parsed whole could take the memory a small CI runner has,
 * and end this process after dbt succeeded.
 */
export const MANIFEST_START_BYTES = 1024 * 1024;

/**
 * The project's name and id from the start of manifest.json (readStart's), or a sentence saying why not. dbt 1.5
 * writes only the id (an MD5 of the name): the name is then the package of a run's node whose MD5 matches, from the
 * nodes' unique ids (`model.<package>.<name>`).
 */
export function readManifest(
  file: FileText,
  path: string,
  results: readonly Pick<NodeResult, 'unique_id'>[],
): Reading<ProjectInfo> {
  if (file === null) return { ok: false, problem: `there is no ${path} to name the project.` };
  if (typeof file === 'object')
    return { ok: false, problem: `cannot read ${path} (${file.unreadable}) to name the project.` };
  const start = /^\s*\{\s*"metadata"\s*:\s*/.exec(file);
  const length = start === null ? null : bracedLength(file.slice(start[0].length), '"');
  if (start === null || length === null)
    return { ok: false, problem: `${path} does not start with its metadata, as dbt writes it.` };
  const metadata = file.slice(start[0].length, start[0].length + length);
  const json = parsedJson(`{"metadata":${metadata}}`, path);
  if (!json.ok) return json;
  const parsed = ManifestFile.safeParse(json.value);
  if (!parsed.success) return { ok: false, problem: `${path} is not a dbt manifest (${firstIssue(parsed.error)}).` };
  const { project_name: name, project_id: id } = parsed.data.metadata;
  if (name) return { ok: true, value: { projectName: name, projectId: id ?? projectIdOf(name) } };
  const packages = new Set(
    results.map((result) => result.unique_id.split('.')[1]).filter((p): p is string => p !== undefined),
  );
  const match = [...packages].find((candidate) => projectIdOf(candidate) === id);
  if (match !== undefined) return { ok: true, value: { projectName: match, projectId: id! } };
  return { ok: true, value: { projectName: '', projectId: id ?? '' } };
}

/**
 * Why run_results.json cannot be the run just started, or null when it can: a run that stops before it starts (a
 * parse error, a killed process) leaves the previous run's file behind.
 */
export function stalenessOf(
  runResults: RunResults,
  path: string,
  run: { startedAt: Date; previousInvocationId: string | null },
): string | null {
  if (run.previousInvocationId !== null && runResults.invocationId === run.previousInvocationId)
    return `${path} is the previous run's (invocation ${run.previousInvocationId}): this run wrote no results.`;
  // generated_at has microseconds, the clock milliseconds: compare at the millisecond.
  if (runResults.generatedAt.getTime() < Math.floor(run.startedAt.getTime()))
    return `${path} was written at ${runResults.generatedAt.toISOString()}, before this run started: this run wrote no results.`;
  return null;
}
