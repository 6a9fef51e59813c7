// The UI's wording of the endpoint's circuit and of a time with its zone: pure functions, no browser needed.
import { circuitNotice, localTime } from '../../service/src/ui/format';

const UNTIL = '1795262587000000'; // 2026-11-21T12:03:07Z in microseconds

test('a closed circuit, or none reported by an older server, adds nothing', () => {
  expect(circuitNotice({ archived: false, delivery_circuit: 'closed' })).toBeNull();
  expect(circuitNotice({ archived: false })).toBeNull();
});

test('an open circuit is a pause until the next try; probing names the probe', () => {
  expect(
    circuitNotice({ archived: false, delivery_circuit: 'open', delivery_circuit_open_until: UNTIL }),
  ).toMatchObject({ state: 'open', label: 'Paused: endpoint failing', nextTryAt: UNTIL });
  // Without its time (not sent by this service, but optional in the contract) the pause is still told.
  const untimed = circuitNotice({ archived: false, delivery_circuit: 'open' });
  expect(untimed).toMatchObject({ state: 'open', label: 'Paused: endpoint failing' });
  expect(untimed).not.toHaveProperty('nextTryAt');
  expect(circuitNotice({ archived: false, delivery_circuit: 'probing' })).toMatchObject({
    state: 'probing',
    label: 'Probing endpoint',
  });
});

test('an archived webhook shows only its Archived badge, whatever its circuit', () => {
  expect(circuitNotice({ archived: true, delivery_circuit: 'open', delivery_circuit_open_until: UNTIL })).toBeNull();
  expect(circuitNotice({ archived: true, delivery_circuit: 'probing' })).toBeNull();
});

test('a time with its zone names the zone; the plain form does not', () => {
  const zone = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
    .formatToParts(new Date(Number(UNTIL) / 1000))
    .find((part) => part.type === 'timeZoneName')?.value;
  expect(zone).toBeTruthy();
  expect(localTime(UNTIL, true)).toContain(zone);
  expect(localTime(UNTIL)).not.toContain(zone);
});
