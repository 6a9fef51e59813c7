// jobhooks' own timestamps as the IaC tools output them: RFC 3339 in UTC, every microsecond kept.
import { outputTime, rfc3339FromMicros } from '@jobhooks/client';

test.each([
  ['1795737259799637', '2026-11-26T23:54:19.799637Z'],
  ['1700000000000000', '2023-11-14T22:13:20.000000Z'],
  ['0', '1970-01-01T00:00:00.000000Z'],
  ['999', '1970-01-01T00:00:00.000999Z'],
])('rfc3339FromMicros(%s) is %s, and reads back as the same instant', (micros, expected) => {
  expect(rfc3339FromMicros(micros)).toBe(expected);
  expect(BigInt(Date.parse(expected)) * 1000n + BigInt(expected.slice(23, 26))).toBe(BigInt(micros));
});

test('what is not microsecond digits is refused', () => {
  expect(() => rfc3339FromMicros('12.5')).toThrow(RangeError);
  expect(() => rfc3339FromMicros('')).toThrow(RangeError);
});

test('outputTime converts digits, keeps RFC 3339 it already wrote, and keeps "no time" as null', () => {
  expect(outputTime('1700000000000000')).toBe('2023-11-14T22:13:20.000000Z');
  expect(outputTime('2023-11-14T22:13:20.000000Z')).toBe('2023-11-14T22:13:20.000000Z');
  expect(outputTime(null)).toBeNull();
  expect(outputTime(undefined)).toBeNull();
});
