// The artifacts each dbt version writes, for the stand-in dbt: run_results.json and manifest.json of dbt Core 1.5 to
// 1.10 and dbt Fusion, in the shape of the real files in test/dbt/fixtures (the fields each version writes per node
// and in its metadata), for each scenario a run can end in.
import { createHash } from 'node:crypto';

export const PROJECT = 'jaffle_shop';

/** A dbt version: what it writes, and the schemas its files follow (test/dbt/fixtures/schemas). */
export interface DbtVersion {
  label: string;
  dbtVersion: string;
  runResultsSchema: 4 | 5 | 6;
  manifestSchema: 9 | 10 | 11 | 12;
  /** run-results v5 added compiled, compiled_code and relation_name to each result. */
  compiledFields: boolean;
  /** dbt 1.9 added batch_results (microbatch models). */
  batchResults: boolean;
  /** dbt 1.10 added metadata.invocation_started_at. */
  invocationStartedAt: boolean;
  /** dbt 1.6 added metadata.project_name to the manifest; 1.5 writes only project_id. */
  manifestProjectName: boolean;
  fusion: boolean;
}

const core = (
  label: string,
  dbtVersion: string,
  runResultsSchema: DbtVersion['runResultsSchema'],
  manifestSchema: DbtVersion['manifestSchema'],
): DbtVersion => {
  const minor = Number(label.split('.')[1]);
  return {
    label,
    dbtVersion,
    runResultsSchema,
    manifestSchema,
    compiledFields: runResultsSchema >= 5,
    batchResults: minor >= 9,
    invocationStartedAt: minor >= 10,
    manifestProjectName: minor >= 6,
    fusion: false,
  };
};

export const DBT_VERSIONS: readonly DbtVersion[] = [
  core('1.5', '1.5.11', 4, 9),
  core('1.6', '1.6.7', 4, 10),
  core('1.7', '1.7.19', 5, 11),
  core('1.8', '1.8.9', 6, 12),
  core('1.9', '1.9.4', 6, 12),
  core('1.10', '1.10.11', 6, 12),
  {
    label: 'Fusion',
    dbtVersion: '2.0.0',
    runResultsSchema: 6,
    manifestSchema: 12,
    compiledFields: true,
    batchResults: true,
    invocationStartedAt: true,
    manifestProjectName: true,
    fusion: true,
  },
];

type NodeStatus = 'success' | 'error' | 'skipped' | 'pass' | 'fail' | 'warn';

interface Node {
  uniqueId: string;
  status: NodeStatus;
  message: string | null;
  failures: number | null;
}

/** How the run goes: its nodes, dbt's exit code, and whether it waits to be cancelled. */
export interface Scenario {
  name: string;
  nodes: Node[];
  exitCode: 0 | 1 | 2;
  /** Cancelled midway: dbt writes the nodes that finished when it gets SIGINT (not SIGTERM), then exits 2. */
  waitsForSignal?: boolean;
}

const model = (name: string, status: NodeStatus = 'success', message: string | null = 'CREATE VIEW'): Node => ({
  uniqueId: `model.${PROJECT}.${name}`,
  status,
  message: status === 'skipped' ? null : message,
  failures: null,
});
const test = (name: string, status: NodeStatus = 'pass', failures = 0, message: string | null = null): Node => ({
  uniqueId: `test.${PROJECT}.${name}`,
  status,
  message,
  failures: status === 'skipped' ? null : failures,
});
const seed = (name: string): Node => ({
  uniqueId: `seed.${PROJECT}.${name}`,
  status: 'success',
  message: 'INSERT 100',
  failures: null,
});

export const MODEL_ERROR =
  'Database Error in model orders (models/orders.sql)\n  column "amount" does not exist\n  LINE 12:     sum(amount) as amount\n               ^\n  compiled code at target/run/jaffle_shop/models/orders.sql';
export const TEST_FAILURE = 'Got 3 results, configured to fail if != 0';

export const SCENARIOS = {
  success: {
    name: 'success',
    nodes: [seed('raw_orders'), model('stg_orders'), model('orders'), test('unique_orders_order_id.fed79b3a6e')],
    exitCode: 0,
  },
  modelError: {
    name: 'a model error, its children skipped',
    nodes: [
      seed('raw_orders'),
      model('stg_orders'),
      model('orders', 'error', MODEL_ERROR),
      model('customers', 'skipped'),
      test('unique_orders_order_id.fed79b3a6e', 'skipped'),
    ],
    exitCode: 1,
  },
  testFailure: {
    name: 'a test failure',
    nodes: [
      model('stg_orders'),
      model('orders'),
      test('unique_orders_order_id.fed79b3a6e', 'fail', 3, TEST_FAILURE),
      test('not_null_orders_order_id.cf6c17daed'),
    ],
    exitCode: 1,
  },
  warning: {
    name: 'a warning',
    nodes: [
      model('orders'),
      test('accepted_values_orders_status.be6b5b5ec3', 'warn', 1, 'Got 1 result, configured to warn if != 0'),
    ],
    exitCode: 0,
  },
  cancelled: {
    name: 'a run cancelled midway',
    nodes: [seed('raw_orders'), model('stg_orders')],
    exitCode: 2,
    waitsForSignal: true,
  },
} satisfies Record<string, Scenario>;

/**
 * The times and invocation id of one run, as dbt writes them (`2024-05-02T11:13:36.981553Z`); the stand-in's plans
 * hold placeholders (PLACEHOLDERS) that it fills in when it writes.
 */
export interface Invocation {
  invocationId: string;
  startedAt: string;
  generatedAt: string;
  /** elapsed_time, in seconds. */
  elapsed: number | string;
}

/** dbt's timestamps: microseconds, and a Z. */
export const dbtTime = (date: Date) => date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** What the stand-in dbt replaces with this run's values when it writes a planned artifact. */
export const PLACEHOLDERS: Invocation = {
  invocationId: '__INVOCATION_ID__',
  startedAt: '__STARTED_AT__',
  generatedAt: '__GENERATED_AT__',
  elapsed: '__ELAPSED__',
};

function resultOf(version: DbtVersion, node: Node, index: number, at: string): Record<string, unknown> {
  const ran = node.status !== 'skipped';
  const timing = ran ? ['compile', 'execute'].map((name) => ({ name, started_at: at, completed_at: at })) : [];
  const isModel = node.uniqueId.startsWith('model.');
  return {
    status: node.status,
    timing,
    thread_id: `Thread-${index + 1} (worker)`,
    execution_time: ran ? 0.05 * (index + 1) : 0,
    adapter_response:
      ran && node.status === 'success' ? { _message: node.message, code: node.message, rows_affected: -1 } : {},
    message: node.message,
    failures: node.failures,
    unique_id: node.uniqueId,
    ...(version.compiledFields
      ? {
          compiled: ran ? true : null,
          compiled_code: ran ? 'select 1 as id' : null,
          relation_name: isModel ? `"analytics"."dbt"."${node.uniqueId.split('.')[2]}"` : null,
        }
      : {}),
    ...(version.batchResults ? { batch_results: null } : {}),
  };
}

const args = (version: DbtVersion, command: string[]) =>
  version.fusion
    ? { command: command[0] ?? 'build', which: command[0] ?? 'build' }
    : {
        which: command[0] ?? 'build',
        invocation_command: ['dbt', ...command].join(' '),
        target: 'prod',
        write_json: true,
      };

/** run_results.json as `version` writes it after running `nodes`. */
export function runResultsOf(
  version: DbtVersion,
  nodes: readonly Node[],
  invocation: Invocation,
  command: string[] = ['build'],
): Record<string, unknown> {
  return {
    metadata: {
      dbt_schema_version: `https://schemas.getdbt.com/dbt/run-results/v${version.runResultsSchema}.json`,
      dbt_version: version.dbtVersion,
      generated_at: invocation.generatedAt,
      invocation_id: invocation.invocationId,
      ...(version.invocationStartedAt ? { invocation_started_at: invocation.startedAt } : {}),
      env: {},
    },
    results: nodes.map((node, index) => resultOf(version, node, index, invocation.generatedAt)),
    elapsed_time: invocation.elapsed,
    args: args(version, command),
  };
}

/** The project id dbt writes: the MD5 of the project's name. */
export const PROJECT_ID = createHash('md5').update(PROJECT).digest('hex');

/** manifest.json's metadata as `version` writes it (jobhooks-dbt reads nothing else of a manifest). */
export function manifestOf(version: DbtVersion, invocation: Invocation): Record<string, unknown> {
  return {
    metadata: {
      dbt_schema_version: `https://schemas.getdbt.com/dbt/manifest/v${version.manifestSchema}.json`,
      dbt_version: version.dbtVersion,
      generated_at: invocation.generatedAt,
      invocation_id: invocation.invocationId,
      ...(version.invocationStartedAt ? { invocation_started_at: invocation.startedAt } : {}),
      env: {},
      ...(version.manifestProjectName ? { project_name: PROJECT } : {}),
      project_id: PROJECT_ID,
      user_id: null,
      send_anonymous_usage_stats: false,
      adapter_type: 'postgres',
    },
    nodes: {},
    sources: {},
    macros: {},
    docs: {},
    exposures: {},
    metrics: {},
    groups: {},
    selectors: {},
  };
}
