// The suites run in a jest worker process, never in jest's own: a suite that crashes its process, or changes it
// for the suites after it, then fails alone instead of ending the run (jest.config.js says how). Jest runs them in
// its own process by itself on a machine of 2 cores or fewer, where this test fails without that setting; asked to
// (--runInBand, --detectOpenHandles), it always does, and this test fails on purpose.
import { basename } from 'node:path';

test('this suite runs in a worker process that jest started, not in jest itself', () => {
  expect(basename(process.argv[1] ?? '')).toBe('processChild.js');
});
