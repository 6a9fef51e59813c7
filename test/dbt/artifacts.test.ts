// Reading dbt's artifacts: every real file and every version's run_results.json and manifest.json give the run's
// version, times, results and project; a missing, cut-off, foreign or stale file gives one sentence.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_START_BYTES, readManifest, readRunResults, stalenessOf } from '../../provider/dbt/src/artifacts';
import { outcomeOf } from '../../provider/dbt/src/run-outcome';
import {
  DBT_VERSIONS,
  dbtTime,
  manifestOf,
  MODEL_ERROR,
  PROJECT,
  PROJECT_ID,
  runResultsOf,
  SCENARIOS,
  TEST_FAILURE,
} from './support/dbt-artifacts';

const REAL = join(__dirname, 'fixtures', 'real');
const nodes = (...ids: string[]) => ids.map((id) => ({ unique_id: id }));
const real = (file: string) => readFileSync(join(REAL, file), 'utf8');

describe('the real run_results.json files', () => {
  test.each([
    ['dbt-core-1.6.7-run-results-v4.json', 4, '1.6.7', 2],
    ['dbt-core-1.8.0a1-run-results-v5.json', 5, '1.8.0a1', 2],
    ['dbt-core-1.8.0a1-run-results-v6.json', 6, '1.8.0a1', 2],
    ['jaffle-shop-1.0.0-run-results-v4.json', 4, '1.0.0', 29],
    ['dbt-core-1.9.0a1-run-results-v6.json', 6, '1.9.0a1', 2],
    ['jaffle-shop-1.7.0-run-results-v5.json', 5, '1.7.0', 58],
    ['openlineage-1.8.9-run-results-v6.json', 6, '1.8.9', 1],
    ['jaffle-shop-1.9.0-run-results-v6.json', 6, '1.9.0', 61],
    ['jaffle-shop-1.11.7-run-results-v6.json', 6, '1.11.7', 40],
    ['dbt-fusion-2.0.0-run-results-v6.json', 6, '2.0.0', 1],
    ['dbt-fusion-2.0.4-run-results-v6.json', 6, '2.0.4', 1],
  ])('%s: run-results v%d of dbt %s, %d results', (file, schema, dbtVersion, count) => {
    const reading = readRunResults(real(file), file);
    expect(reading).toMatchObject({ ok: true, value: { schemaVersion: schema, dbtVersion } });
    if (!reading.ok) return;
    expect(reading.value.results).toHaveLength(count);
    expect(reading.value.generatedAt.getTime()).toBeGreaterThan(reading.value.startedAt.getTime() - 1);
  });

  test('the start is generated_at less elapsed_time when dbt did not record invocation_started_at', () => {
    const reading = readRunResults(real('jaffle-shop-1.0.0-run-results-v4.json'), 'run_results.json');
    if (!reading.ok) throw new Error(reading.problem);
    expect(reading.value.generatedAt.toISOString()).toBe('2021-12-07T10:49:34.224Z');
    // elapsed_time 16.181153059005737 s
    expect(reading.value.startedAt.toISOString()).toBe('2021-12-07T10:49:18.043Z');
    expect(reading.value.results.find((r) => r.status === 'error')).toMatchObject({
      unique_id: 'model.jaffle_shop.test_insert_overwrite',
      message: expect.stringMatching(/^Database Error in model test_insert_overwrite/),
    });
  });

  test('the start is invocation_started_at where dbt recorded it (1.10 and later)', () => {
    const reading = readRunResults(real('jaffle-shop-1.11.7-run-results-v6.json'), 'run_results.json');
    if (!reading.ok) throw new Error(reading.problem);
    expect(reading.value.startedAt.toISOString()).toBe('2026-03-12T05:46:43.968Z');
    expect(reading.value.generatedAt.toISOString()).toBe('2026-03-12T05:46:46.291Z');
  });

  test("Fusion's statuses are read in lower case whatever their case", () => {
    const text = real('dbt-fusion-2.0.4-run-results-v6.json').replace('"status": "success"', '"status": "Success"');
    const reading = readRunResults(text, 'run_results.json');
    expect(reading.ok && reading.value.results[0]!.status).toBe('success');
  });
});

describe("each version's artifacts, as the stand-in writes them", () => {
  const started = new Date('2026-11-20T09:00:00.000Z');
  const ended = new Date('2026-11-20T09:00:42.500Z');
  const invocation = {
    invocationId: 'a1b2c3',
    startedAt: dbtTime(started),
    generatedAt: dbtTime(ended),
    elapsed: 42.4,
  };

  test.each(DBT_VERSIONS.map((version) => [version.label, version] as const))(
    'dbt %s: version, start, end, results and project',
    (_label, version) => {
      const runResults = JSON.stringify(runResultsOf(version, SCENARIOS.modelError.nodes, invocation));
      const reading = readRunResults(runResults, 'target/run_results.json');
      if (!reading.ok) throw new Error(reading.problem);
      expect(reading.value).toMatchObject({
        schemaVersion: version.runResultsSchema,
        dbtVersion: version.dbtVersion,
        generatedAt: ended,
        invocationId: 'a1b2c3',
      });
      // 1.10 and Fusion record the start; before them it is the end less the elapsed time.
      expect(reading.value.startedAt).toEqual(
        version.invocationStartedAt ? started : new Date('2026-11-20T09:00:00.100Z'),
      );
      expect(reading.value.results.map((r) => r.status)).toEqual(['success', 'success', 'error', 'skipped', 'skipped']);
      const manifest = readManifest(
        JSON.stringify(manifestOf(version, invocation)),
        'target/manifest.json',
        reading.value.results,
      );
      expect(manifest).toEqual({ ok: true, value: { projectName: PROJECT, projectId: PROJECT_ID } });
    },
  );

  /** How each scenario's run is reported, whatever the version that wrote it. */
  const REPORTED: Record<keyof typeof SCENARIOS, { status: string; message: string }> = {
    success: { status: 'success', message: 'None' },
    modelError: {
      status: 'error',
      message: `1 of 5 nodes failed (1 error), 2 skipped.\nmodel.${PROJECT}.orders (error): ${MODEL_ERROR}`,
    },
    testFailure: {
      status: 'error',
      message: `1 of 4 nodes failed (1 test failure).\ntest.${PROJECT}.unique_orders_order_id.fed79b3a6e (fail): ${TEST_FAILURE}`,
    },
    warning: { status: 'success', message: 'None' },
    cancelled: { status: 'cancelled', message: 'Cancelled by SIGINT after 2 nodes had finished.' },
  };
  const cases = DBT_VERSIONS.flatMap((version) =>
    (Object.keys(SCENARIOS) as Array<keyof typeof SCENARIOS>).map(
      (key) => [version.label, SCENARIOS[key].name, version, key] as const,
    ),
  );

  test.each(cases)('dbt %s, %s: read, then reported as the run ended', (_label, _name, version, key) => {
    const scenario = SCENARIOS[key];
    const reading = readRunResults(
      JSON.stringify(runResultsOf(version, scenario.nodes, invocation)),
      'run_results.json',
    );
    if (!reading.ok) throw new Error(reading.problem);
    expect(reading.value.results.map((r) => [r.unique_id, r.status])).toEqual(
      scenario.nodes.map((node) => [node.uniqueId, node.status]),
    );
    const outcome = outcomeOf({
      exitCode: scenario.exitCode,
      signal: null,
      cancelledBy: 'waitsForSignal' in scenario ? 'SIGINT' : null,
      results: reading.value.results,
      artifactProblem: null,
    });
    expect(outcome).toEqual(REPORTED[key]);
  });

  test("a 1.5 manifest has only the project's id: the name is the package of the run's nodes with that MD5", () => {
    const v15 = DBT_VERSIONS.find((v) => v.label === '1.5')!;
    const manifest = JSON.stringify(manifestOf(v15, invocation));
    expect(manifest).not.toContain('project_name');
    expect(readManifest(manifest, 'manifest.json', nodes('model.dbt_utils.x', `model.${PROJECT}.orders`))).toEqual({
      ok: true,
      value: { projectName: PROJECT, projectId: PROJECT_ID },
    });
    // dbt-core's own 1.5 manifest: project "test".
    const dbtCore = real('dbt-core-1.5.0b1-manifest-v9.metadata.json');
    expect(readManifest(dbtCore, 'manifest.json', nodes('model.test.my_model'))).toEqual({
      ok: true,
      value: { projectName: 'test', projectId: '098f6bcd4621d373cade4e832627b4f6' },
    });
    expect(readManifest(dbtCore, 'manifest.json', nodes('model.other.x'))).toEqual({
      ok: true,
      value: { projectName: '', projectId: '098f6bcd4621d373cade4e832627b4f6' },
    });
  });

  test("only the manifest's metadata, which dbt writes first, is read: a manifest too large to parse still names it", () => {
    const v19 = DBT_VERSIONS.find((v) => v.label === '1.9')!;
    const whole = JSON.stringify(manifestOf(v19, invocation));
    expect(whole.startsWith('{"metadata":')).toBe(true);
    // The start a reader of MANIFEST_START_BYTES gets of a manifest of hundreds of MB: its nodes cut off.
    const start = `${whole.slice(0, whole.indexOf(',"nodes":'))},"nodes": {"model.${PROJECT}.orders": {"raw_code": "sel`;
    expect(readManifest(start, 'target/manifest.json', [])).toEqual({
      ok: true,
      value: { projectName: PROJECT, projectId: PROJECT_ID },
    });
    expect(MANIFEST_START_BYTES).toBe(1024 * 1024);
    expect(readManifest('{"nodes": {}, "metadata": {}}', 'target/manifest.json', [])).toEqual({
      ok: false,
      problem: 'target/manifest.json does not start with its metadata, as dbt writes it.',
    });
  });

  test.each(readdirSync(REAL).filter((f) => f.includes('manifest') && !f.includes('v9')))(
    '%s names the project',
    (file) => {
      expect(readManifest(real(file), file, [])).toEqual({
        ok: true,
        value: { projectName: 'test', projectId: '098f6bcd4621d373cade4e832627b4f6' },
      });
    },
  );
});

describe('artifacts that cannot be used, each in one sentence', () => {
  const good = real('dbt-core-1.8.0a1-run-results-v6.json');
  test.each([
    ['missing', null, 'dbt wrote no target/run_results.json, so the results of the run are unknown.'],
    ['cut off', good.slice(0, 500), 'target/run_results.json is not valid JSON (a run cut off while dbt wrote it?).'],
    [
      'another artifact',
      real('dbt-core-1.7.0a1-manifest-v11.metadata.json'),
      'target/run_results.json is not a dbt run_results.json (results: Invalid input: expected array, received undefined).',
    ],
    [
      'another schema',
      good.replace('dbt/run-results/v6.json', 'dbt/sources/v3.json'),
      'target/run_results.json is not a dbt run_results.json (its dbt_schema_version is "https://schemas.getdbt.com/dbt/sources/v3.json").',
    ],
    [
      'no time',
      good.replace('"generated_at": "2023-12-08T18:33:26.385305Z", ', ''),
      'target/run_results.json has no readable generated_at, so when the run ended is unknown.',
    ],
  ])('%s', (_name, text, problem) => {
    expect(readRunResults(text, 'target/run_results.json')).toEqual({ ok: false, problem });
  });

  test("the previous run's file is not this run's: same invocation id, or written before this run started", () => {
    const reading = readRunResults(good, 'target/run_results.json');
    if (!reading.ok) throw new Error(reading.problem);
    const path = 'target/run_results.json';
    const after = new Date('2023-12-08T18:33:20Z');
    expect(stalenessOf(reading.value, path, { startedAt: after, previousInvocationId: null })).toBeNull();
    expect(stalenessOf(reading.value, path, { startedAt: after, previousInvocationId: 'another' })).toBeNull();
    expect(
      stalenessOf(reading.value, path, {
        startedAt: after,
        previousInvocationId: '74d0d61f-8496-4661-9d15-1a48f395508b',
      }),
    ).toBe(
      "target/run_results.json is the previous run's (invocation 74d0d61f-8496-4661-9d15-1a48f395508b): this run wrote no results.",
    );
    expect(
      stalenessOf(reading.value, path, { startedAt: new Date('2023-12-08T18:40:00Z'), previousInvocationId: null }),
    ).toBe(
      'target/run_results.json was written at 2023-12-08T18:33:26.385Z, before this run started: this run wrote no results.',
    );
  });
});
