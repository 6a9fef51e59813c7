// How a dbt run ended, in dbt Cloud's terms: its status and status code, and the runStatusMessage that carries the
// first failures (node, status, message) the way dbt Cloud puts a run's error there, bounded in size.
import { PAYLOAD_RUN_STATUS } from '@jobhooks/client/contract';
import type { NodeResult } from './artifacts';
import { cutToLength, maxLengthOf } from './contract-limits';

export type RunStatus = 'running' | 'success' | 'error' | 'cancelled';

const withWord = (runStatusCode: number) => ({ runStatus: PAYLOAD_RUN_STATUS[runStatusCode]!, runStatusCode });

/** The run statuses a dbt run reports: the number in runStatusCode and the word a delivery carries with it. */
export const RUN_STATUS: Record<RunStatus, { runStatus: string; runStatusCode: number }> = {
  running: withWord(3),
  success: withWord(10),
  error: withWord(20),
  cancelled: withWord(30),
};

/** What dbt Cloud writes in runStatusMessage when a run has nothing to say. */
export const NO_MESSAGE = 'None';

/**
 * The node statuses that fail a run (a `warn` does not): `partial success` is dbt 1.9's for a microbatch model
 * some of whose batches failed, which dbt counts as an error.
 */
const FAILED = new Set(['error', 'fail', 'runtime error', 'partial success']);

/** Room for the message: the contract's limit for runStatusMessage. */
export const MAX_MESSAGE_LENGTH = maxLengthOf('runStatusMessage');
/** Each node's message is cut here, so one long SQL error does not crowd out the others. */
export const MAX_NODE_MESSAGE_LENGTH = 600;
/** How many failed nodes are named; the rest are counted. */
export const MAX_NODES_NAMED = 5;

export interface RunEnd {
  /** dbt's exit code, or null when it did not exit by itself (killed) or when the run is reported afterwards. */
  exitCode: number | null;
  /** The signal that ended dbt, if one did. */
  signal: string | null;
  /** The signal that cancelled the run (SIGINT, SIGTERM sent to jobhooks-dbt or to dbt), if one did. */
  cancelledBy: string | null;
  /** The node results, or null when run_results.json could not be used. */
  results: NodeResult[] | null;
  /** Why run_results.json could not be used, as one sentence. */
  artifactProblem: string | null;
}

export interface RunOutcome {
  status: Exclude<RunStatus, 'running'>;
  message: string;
}

const failedNodes = (results: readonly NodeResult[]) => results.filter((result) => FAILED.has(result.status));

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Trimmed and cut to `max`, the ellipsis right after the last word kept. */
function cut(text: string, max: number): string {
  return cutToLength(text.trim(), max).replace(/\s+…$/, '…');
}

/** "2 of 12 nodes failed (1 error, 1 test failure), 3 skipped." and then one paragraph per failed node. */
export function failuresMessage(results: readonly NodeResult[]): string {
  const failed = failedNodes(results);
  if (failed.length === 0) return '';
  const count = (status: string) => failed.filter((result) => result.status === status).length;
  const kinds = [
    [count('error'), 'error'],
    [count('fail'), 'test failure'],
    [count('runtime error'), 'runtime error'],
    [count('partial success'), 'partial success'],
  ] as const;
  const skipped = results.filter((result) => result.status === 'skipped').length;
  const summary =
    `${failed.length} of ${plural(results.length, 'node')} failed (` +
    kinds
      .filter(([n]) => n > 0)
      .map(([n, word]) => plural(n, word))
      .join(', ') +
    `)${skipped > 0 ? `, ${skipped} skipped` : ''}.`;
  const named = failed.slice(0, MAX_NODES_NAMED).map((result) => {
    const said = result.message?.trim() || (result.failures ? `${plural(result.failures, 'failing row')}` : '');
    return `${result.unique_id} (${result.status})${said ? `: ${cut(said, MAX_NODE_MESSAGE_LENGTH)}` : ''}`;
  });
  const more = failed.length > MAX_NODES_NAMED ? [`… and ${failed.length - MAX_NODES_NAMED} more.`] : [];
  return [summary, ...named, ...more].join('\n');
}

/** The outcome of a run: cancelled when a signal stopped it, an error when dbt or a node failed, else a success. */
export function outcomeOf(end: RunEnd): RunOutcome {
  const failures = end.results === null ? '' : failuresMessage(end.results);
  const parts = (...texts: string[]) => cut(texts.filter((text) => text !== '').join('\n'), MAX_MESSAGE_LENGTH);
  if (end.cancelledBy !== null) {
    const finished = end.results === null ? '' : ` after ${plural(end.results.length, 'node')} had finished`;
    return { status: 'cancelled', message: parts(`Cancelled by ${end.cancelledBy}${finished}.`, failures) };
  }
  if (end.signal !== null)
    return {
      status: 'error',
      message: parts(`dbt was killed by ${end.signal} before it finished.`, end.artifactProblem ?? '', failures),
    };
  if (end.artifactProblem !== null) {
    const exited = end.exitCode === null ? '' : `dbt exited with code ${end.exitCode}; `;
    return { status: 'error', message: parts(`${exited}${end.artifactProblem}`) };
  }
  if (failures !== '' || (end.exitCode !== null && end.exitCode !== 0)) {
    const exited =
      end.exitCode !== null && end.exitCode !== 0 && failures === '' ? `dbt exited with code ${end.exitCode}.` : '';
    return { status: 'error', message: parts(exited, failures) };
  }
  return { status: 'success', message: NO_MESSAGE };
}
