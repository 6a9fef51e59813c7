// How a run ended, in dbt Cloud's terms, and the runStatusMessage that carries its first failures, bounded; and the
// events each outcome gives, in dbt Cloud's order, each valid for the contract's ingestion body.
import { IngestEventBody } from '@jobhooks/client/contract';
import type { NodeResult } from '../../provider/dbt/src/artifacts';
import { endEvents, type RunIdentity, startedEvent } from '../../provider/dbt/src/run-events';
import {
  failuresMessage,
  MAX_MESSAGE_LENGTH,
  MAX_NODE_MESSAGE_LENGTH,
  MAX_NODES_NAMED,
  outcomeOf,
  type RunEnd,
} from '../../provider/dbt/src/run-outcome';
import { MODEL_ERROR, SCENARIOS, TEST_FAILURE } from './support/dbt-artifacts';

const resultsOf = (scenario: keyof typeof SCENARIOS): NodeResult[] =>
  SCENARIOS[scenario].nodes.map((node) => ({
    unique_id: node.uniqueId,
    status: node.status,
    message: node.message,
    failures: node.failures,
  }));

const end = (overrides: Partial<RunEnd>): RunEnd => ({
  exitCode: 0,
  signal: null,
  cancelledBy: null,
  results: [],
  artifactProblem: null,
  ...overrides,
});

describe('the outcome of each way a run ends', () => {
  test.each([
    ['success', end({ results: resultsOf('success') }), 'success', 'None'],
    ['a warning does not fail the run', end({ results: resultsOf('warning') }), 'success', 'None'],
    [
      'a model error, its children skipped',
      end({ exitCode: 1, results: resultsOf('modelError') }),
      'error',
      `1 of 5 nodes failed (1 error), 2 skipped.\nmodel.jaffle_shop.orders (error): ${MODEL_ERROR}`,
    ],
    [
      'a test failure',
      end({ exitCode: 1, results: resultsOf('testFailure') }),
      'error',
      `1 of 4 nodes failed (1 test failure).\ntest.jaffle_shop.unique_orders_order_id.fed79b3a6e (fail): ${TEST_FAILURE}`,
    ],
    [
      'cancelled midway by SIGTERM',
      end({ exitCode: 2, cancelledBy: 'SIGTERM', results: resultsOf('cancelled') }),
      'cancelled',
      'Cancelled by SIGTERM after 2 nodes had finished.',
    ],
    [
      'killed',
      end({
        exitCode: null,
        signal: 'SIGKILL',
        results: null,
        artifactProblem: 'dbt wrote no target/run_results.json, so the results of the run are unknown.',
      }),
      'error',
      'dbt was killed by SIGKILL before it finished.\ndbt wrote no target/run_results.json, so the results of the run are unknown.',
    ],
    [
      'a parse error: no artifact',
      end({
        exitCode: 2,
        results: null,
        artifactProblem: "target/run_results.json is the previous run's (invocation x): this run wrote no results.",
      }),
      'error',
      "dbt exited with code 2; target/run_results.json is the previous run's (invocation x): this run wrote no results.",
    ],
    [
      'an artifact missing after a success is still an errored run',
      end({
        exitCode: 0,
        results: null,
        artifactProblem: 'dbt wrote no target/run_results.json, so the results of the run are unknown.',
      }),
      'error',
      'dbt exited with code 0; dbt wrote no target/run_results.json, so the results of the run are unknown.',
    ],
    [
      'a failing exit with no failed node',
      end({ exitCode: 2, results: resultsOf('success') }),
      'error',
      'dbt exited with code 2.',
    ],
    [
      "dbt 1.9's partial success (a microbatch model some of whose batches failed) fails the run",
      end({
        exitCode: 1,
        results: [
          { unique_id: 'model.p.events', status: 'partial success', message: '2 of 5 batches failed', failures: null },
          { unique_id: 'model.p.daily', status: 'success', message: 'OK', failures: null },
        ],
      }),
      'error',
      '1 of 2 nodes failed (1 partial success).\nmodel.p.events (partial success): 2 of 5 batches failed',
    ],
    [
      'a failed node reported afterwards (no exit code)',
      end({ exitCode: null, results: resultsOf('testFailure') }),
      'error',
      expect.stringMatching(/^1 of 4 nodes failed/),
    ],
  ])('%s', (_name, runEnd, status, message) => {
    expect(outcomeOf(runEnd)).toEqual({ status, message });
  });
});

const IDENTITY: RunIdentity = {
  jobId: '42',
  jobName: 'dbt build --select tag:nightly',
  runId: 'github-123-1-build-42',
  environmentId: '7',
  environmentName: 'prod',
  projectName: 'jaffle_shop',
  projectId: 'abc',
  dbtVersion: '1.10.11',
  runReason: 'Triggered by GitHub Actions',
};

describe('the message stays bounded', () => {
  const failed = (count: number, length: number): NodeResult[] =>
    Array.from({ length: count }, (_, i) => ({
      unique_id: `model.p.m${i}`,
      status: 'error',
      message: `Database Error ${i} ${'x'.repeat(length)}`,
      failures: null,
    }));

  test(`each node's message is cut at ${MAX_NODE_MESSAGE_LENGTH} characters, and ${MAX_NODES_NAMED} nodes are named`, () => {
    const message = failuresMessage(failed(8, 5000));
    const lines = message.split('\n');
    expect(lines[0]).toBe('8 of 8 nodes failed (8 errors).');
    expect(lines.slice(1, -1)).toHaveLength(MAX_NODES_NAMED);
    for (const line of lines.slice(1, -1)) {
      expect(line).toMatch(/^model\.p\.m\d \(error\): Database Error \d x+…$/);
      expect(line.length).toBeLessThan(MAX_NODE_MESSAGE_LENGTH + 40);
    }
    expect(lines.at(-1)).toBe('… and 3 more.');
    expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
  });

  test('the whole message never passes the contract limit, even with long node ids', () => {
    const results = failed(5, 5000).map((r, i) => ({ ...r, unique_id: `model.p.${'n'.repeat(900)}${i}` }));
    const { message } = outcomeOf(end({ exitCode: 1, results }));
    expect(message.length).toBe(MAX_MESSAGE_LENGTH);
    expect(message.endsWith('…')).toBe(true);
  });

  test("a cut never splits a character in two, and a lone half of one in dbt's text is replaced: the event is taken in", () => {
    // The cut falls inside an emoji (two UTF-16 units), in a node's message and in the whole message.
    const emoji = '\u{1F600}';
    const results: NodeResult[] = [
      { unique_id: 'model.p.a', status: 'error', message: `${'a'.repeat(598)}${emoji.repeat(60)}`, failures: null },
      { unique_id: 'model.p.b', status: 'error', message: `lone \uD83D half`, failures: null },
      ...failed(3, 5000).map((r) => ({ ...r, message: emoji.repeat(400) })),
    ];
    const { message } = outcomeOf(end({ exitCode: 1, results }));
    expect(message).toContain(`${'a'.repeat(598)}…`);
    expect(message).toContain('lone \uFFFD half');
    expect(message.endsWith(`${emoji}…`)).toBe(true);
    expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    for (const event of endEvents(IDENTITY, new Date(0), new Date(1), { status: 'error', message }))
      expect(IngestEventBody.safeParse(event).error?.issues).toBeUndefined();
  });

  test('a test failure without a message says how many rows failed', () => {
    expect(failuresMessage([{ unique_id: 'test.p.t', status: 'fail', message: null, failures: 12 }])).toBe(
      '1 of 1 node failed (1 test failure).\ntest.p.t (fail): 12 failing rows',
    );
  });
});

describe('the events of a run', () => {
  const identity = IDENTITY;
  const startedAt = new Date('2026-11-20T09:00:00Z');
  const finishedAt = new Date('2026-11-20T09:05:00Z');

  test('started: running, code 3; every event is a valid ingestion body', () => {
    const started = startedEvent(identity, startedAt);
    expect(started).toEqual({
      event_type: 'job.run.started',
      run: {
        ...identity,
        runStatus: 'Running',
        runStatusCode: 3,
        runStatusMessage: 'None',
        runStartedAt: '2026-11-20T09:00:00.000Z',
      },
    });
    expect(IngestEventBody.safeParse(started).success).toBe(true);
  });

  test.each([
    ['success', ['job.run.completed'], 10, 'Success'],
    ['error', ['job.run.errored', 'job.run.completed'], 20, 'Errored'],
    ['cancelled', ['job.run.completed'], 30, 'Cancelled'],
  ] as const)('%s: %j with runStatusCode %d', (status, types, code, word) => {
    const events = endEvents(identity, startedAt, finishedAt, { status, message: 'm' });
    expect(events.map((e) => e.event_type)).toEqual(types);
    for (const event of events) {
      expect(event.run).toMatchObject({ runStatusCode: code, runStatus: word, runStatusMessage: 'm' });
      expect(IngestEventBody.safeParse(event).success).toBe(true);
    }
    expect(events.at(-1)!.run.runFinishedAt).toBe('2026-11-20T09:05:00.000Z');
    if (status === 'error') expect(events[0]!.run.runErroredAt).toBe('2026-11-20T09:05:00.000Z');
  });

  test('fields longer than the contract allows are cut, not refused', () => {
    const long = { ...identity, jobName: 'j'.repeat(3000), runReason: 'r'.repeat(9000), dbtVersion: 'v'.repeat(100) };
    const [event] = endEvents(long, startedAt, finishedAt, { status: 'success', message: 'None' });
    expect(IngestEventBody.safeParse(event).success).toBe(true);
    expect(event!.run.jobName).toHaveLength(1024);
    // A cut inside an emoji backs off by one unit rather than leave half of it.
    const [emojis] = endEvents({ ...identity, jobName: '\u{1F600}'.repeat(600) }, startedAt, finishedAt, {
      status: 'success',
      message: 'None',
    });
    expect(IngestEventBody.safeParse(emojis).success).toBe(true);
    expect(emojis!.run.jobName).toHaveLength(1023);
  });
});
