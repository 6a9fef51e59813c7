// The UI's wording of the endpoint's circuit and of a time with its zone: pure functions, no browser needed.
import { circuitNotice, localTime, prettyBody, rfc3339OfLocal } from '../../service/src/ui/format';

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

test('a datetime-local value becomes RFC 3339 with the offset of that moment; empty is no bound; junk goes as typed', () => {
  const sent = rfc3339OfLocal('2026-11-23T09:00');
  expect(sent).toMatch(/^2026-11-23T09:00:00(Z|[+-]\d\d:\d\d)$/);
  expect(Date.parse(sent ?? '')).toBe(new Date('2026-11-23T09:00').getTime());
  expect(rfc3339OfLocal('2026-11-23T09:00:30')).toMatch(/^2026-11-23T09:00:30/);
  expect(rfc3339OfLocal('')).toBeUndefined();
  expect(rfc3339OfLocal('yesterday')).toBe('yesterday');
});

test('a JSON body is indented for reading; anything else is left as it is', () => {
  expect(prettyBody('{"a":[1]}')).toBe('{\n  "a": [\n    1\n  ]\n}');
  expect(prettyBody('<b>not json</b>')).toBe('<b>not json</b>');
  expect(prettyBody('')).toBe('');
});
