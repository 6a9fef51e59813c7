// The contract's limits on a run's fields, read from its RunDetails schema so they are written in one place: what
// a setting is checked against, and where a long text is cut so the event is still taken in.
import { RunDetails } from '@jobhooks/client/contract';

/** The run's text fields the contract bounds in length. */
export type BoundedField =
  | 'jobName'
  | 'runId'
  | 'environmentId'
  | 'environmentName'
  | 'dbtVersion'
  | 'projectName'
  | 'projectId'
  | 'runStatusMessage'
  | 'runReason';

/** The most characters the contract takes in `field`. */
export function maxLengthOf(field: BoundedField): number {
  const max = RunDetails.shape[field].maxLength;
  if (max === null) throw new Error(`The contract sets no length limit on ${field}.`);
  return max;
}

/** Whether `value` is one the contract takes in `field`. */
export const fitsContract = (field: 'jobId' | BoundedField, value: string): boolean =>
  RunDetails.shape[field].safeParse(value).success;
