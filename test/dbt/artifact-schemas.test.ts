// The artifacts the dbt tests read are dbt's own: the real files in test/dbt/fixtures/real, and every file the stand-in
// dbt writes (each version, each scenario), validate against dbt's published JSON schemas of their version.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type AnySchema, type ErrorObject } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import {
  DBT_VERSIONS,
  type DbtVersion,
  dbtTime,
  manifestOf,
  type Invocation,
  runResultsOf,
  SCENARIOS,
} from './support/dbt-artifacts';

const FIXTURES = join(__dirname, 'fixtures');
const json = (path: string) => JSON.parse(readFileSync(join(FIXTURES, path), 'utf8')) as Record<string, unknown>;

// dbt's schemas use formats (date-time, uuid) that only describe; the shapes are what is checked.
const draft7 = new Ajv({ strict: false, validateFormats: false, allErrors: true });
const draft2020 = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

function validatorOf(schema: Record<string, unknown>) {
  const ajv = schema.$schema === 'https://json-schema.org/draft/2020-12/schema' ? draft2020 : draft7;
  const { $id: _id, ...anonymous } = schema; // one schema per version and purpose, compiled once each
  return ajv.compile(anonymous as AnySchema);
}

/**
 * run-results v4 and v5 with a result's status under `anyOf`, as v6 has it: published with `oneOf` over three lists
 * that share `pass` and `warn`, they refuse every passing test, warning, error and skipped node (see fixtures/README.md).
 */
function withStatusAnyOf(path: string): Record<string, unknown> {
  const schema = structuredClone(json(path)) as {
    definitions: { RunResultOutput: { properties: { status: { oneOf?: unknown; anyOf?: unknown } } } };
  };
  const status = schema.definitions.RunResultOutput.properties.status;
  status.anyOf = status.oneOf;
  delete status.oneOf;
  return schema as unknown as Record<string, unknown>;
}

const runResultsValidators = {
  4: validatorOf(withStatusAnyOf('schemas/run-results-v4.json')),
  5: validatorOf(withStatusAnyOf('schemas/run-results-v5.json')),
  6: validatorOf(json('schemas/run-results-v6.json')),
};
const manifestMetadataValidators = {
  9: validatorOf(json('schemas/manifest-v9-metadata.json')),
  10: validatorOf(json('schemas/manifest-v10-metadata.json')),
  11: validatorOf(json('schemas/manifest-v11-metadata.json')),
  12: validatorOf(json('schemas/manifest-v12-metadata.json')),
};

const errorsOf = (validate: { (data: unknown): boolean; errors?: ErrorObject[] | null }, data: unknown) =>
  validate(data)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);

const schemaVersion = (artifact: Record<string, unknown>) =>
  Number(/\/v(\d+)\.json$/.exec((artifact.metadata as { dbt_schema_version: string }).dbt_schema_version)![1]);

describe('the real artifacts kept in fixtures/real', () => {
  const files = readdirSync(join(FIXTURES, 'real'));

  test.each(files.filter((f) => f.includes('run-results') && !f.includes('fusion')))(
    '%s validates against the run-results schema it names',
    (file) => {
      const artifact = json(`real/${file}`);
      const version = schemaVersion(artifact) as 4 | 5 | 6;
      expect(errorsOf(runResultsValidators[version], artifact)).toEqual([]);
    },
  );

  test('as published, run-results v4 refuses a passing test or a failed model only for the oneOf of its status', () => {
    const artifact = json('real/jaffle-shop-1.0.0-run-results-v4.json');
    const published = validatorOf(json('schemas/run-results-v4.json'));
    const errors = errorsOf(published, artifact);
    // The statuses that are in more than one of the three lists.
    const shared = (artifact.results as Array<{ status: string }>).filter((r) =>
      ['pass', 'warn', 'error', 'skipped'].includes(r.status),
    ).length;
    expect(shared).toBeGreaterThan(0);
    expect(errors.filter((e) => /status must match exactly one schema in oneOf/.test(e))).toHaveLength(shared);
    expect(errors.filter((e) => !/\/status must/.test(e))).toEqual([]);
  });

  test.each(files.filter((f) => f.includes('fusion')))(
    "%s validates against run-results v6 except for Fusion's own static_analysis_off_reason",
    (file) => {
      const artifact = json(`real/${file}`);
      expect(schemaVersion(artifact)).toBe(6);
      const errors = errorsOf(runResultsValidators[6], artifact);
      expect(errors).toEqual([
        expect.stringMatching(/^\/results\/0 must NOT have additional properties .*static_analysis_off_reason/),
      ]);
    },
  );

  test.each(files.filter((f) => f.includes('manifest')))('%s has the metadata of its manifest schema', (file) => {
    const metadata = json(`real/${file}`).metadata as Record<string, unknown>;
    const version = schemaVersion({ metadata }) as 9 | 10 | 11 | 12;
    expect(errorsOf(manifestMetadataValidators[version], metadata)).toEqual([]);
  });

  test('every file is accounted for in fixtures/README.md, with its source', () => {
    const readme = readFileSync(join(FIXTURES, 'README.md'), 'utf8');
    for (const file of [...files, ...readdirSync(join(FIXTURES, 'schemas'))])
      expect(readme).toMatch(
        new RegExp(`\\| \`${file.replace(/\./g, '\\.')}\` \\| [^|]*(dbt-core|dbt-artifacts-parser|OpenLineage)`),
      );
  });
});

describe('what the stand-in dbt writes, for each version and scenario', () => {
  const now = new Date('2026-11-20T09:00:00Z');
  const invocation: Invocation = {
    invocationId: '8f2cc30b-0d64-4b6c-9a4b-0d1f2e3a4b5c',
    startedAt: dbtTime(now),
    generatedAt: dbtTime(new Date(now.getTime() + 42_000)),
    elapsed: 42.01,
  };
  const cases = DBT_VERSIONS.flatMap((version) =>
    Object.values(SCENARIOS).map((scenario) => [version.label, scenario.name, version, scenario] as const),
  );

  const runResultsValidator = (version: DbtVersion) => runResultsValidators[version.runResultsSchema];

  test.each(cases)('dbt %s, %s: run_results.json and the manifest validate', (_label, _name, version, scenario) => {
    const runResults = runResultsOf(version, scenario.nodes, invocation);
    expect(schemaVersion(runResults)).toBe(version.runResultsSchema);
    expect(errorsOf(runResultsValidator(version), runResults)).toEqual([]);
    const manifest = manifestOf(version, invocation);
    expect(errorsOf(manifestMetadataValidators[version.manifestSchema], manifest.metadata)).toEqual([]);
  });

  test("the checks are real: a property a version's schema does not list is refused", () => {
    const version = DBT_VERSIONS.find((v) => v.label === '1.10')!;
    const runResults = runResultsOf(version, SCENARIOS.success.nodes, invocation);
    (runResults.metadata as Record<string, unknown>).invocation_ended_at = invocation.generatedAt;
    expect(errorsOf(runResultsValidators[6], runResults)).toEqual([
      expect.stringMatching(/^\/metadata must NOT have additional properties .*invocation_ended_at/),
    ]);
    // And a result with a field its version does not write is refused by that version's schema.
    const v4 = DBT_VERSIONS.find((v) => v.runResultsSchema === 4)!;
    const withCompiled = runResultsOf({ ...v4, compiledFields: true }, SCENARIOS.success.nodes, invocation);
    expect(errorsOf(runResultsValidators[4], withCompiled).length).toBeGreaterThan(0);
  });
});
