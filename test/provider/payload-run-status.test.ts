// The word a delivery's runStatus carries for each run status code: dbt Cloud's three pairs, and one word for every
// code an event type admits, so no delivery falls back to the word that was posted.
import { EVENT_RULES, PAYLOAD_RUN_STATUS } from '@jobhooks/client/contract';

test("dbt Cloud's payload pairs: 3 Running, 10 Success, 20 Errored", () => {
  expect([PAYLOAD_RUN_STATUS[3], PAYLOAD_RUN_STATUS[10], PAYLOAD_RUN_STATUS[20]]).toEqual([
    'Running',
    'Success',
    'Errored',
  ]);
});

test('every run status code an event type admits has its word', () => {
  const admitted = [...new Set(Object.values(EVENT_RULES).flatMap((rules) => rules.statusCodes))].sort((a, b) => a - b);
  expect(admitted.map((code) => [code, PAYLOAD_RUN_STATUS[code]])).toEqual([
    [2, 'Starting'],
    [3, 'Running'],
    [10, 'Success'],
    [20, 'Errored'],
    [30, 'Cancelled'],
  ]);
});
