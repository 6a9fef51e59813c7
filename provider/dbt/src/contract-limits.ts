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

/** A lone half of a surrogate pair: no UTF-8 encodes it, and the service refuses text that holds one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` in at most `max` UTF-16 units (the contract's measure), ending in an ellipsis when it was longer. Never cut
 * between the two halves of a character beyond the Basic Multilingual Plane (an emoji): the half left would be a lone
 * surrogate, and the service would refuse it and the whole event with it. A lone surrogate already there (dbt's
 * JSON may escape one) becomes U+FFFD, for the same reason.
 */
export function cutToLength(text: string, max: number): string {
  const whole = text.replace(LONE_SURROGATE, '\uFFFD');
  if (whole.length <= max) return whole;
  let end = max - 1;
  const last = whole.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${whole.slice(0, end)}…`;
}
