// Time with its unit in its type (service/src/core/time.ts): a value in one unit does not fit where another is
// expected. The @ts-expect-error lines are the test: `npm run typecheck` fails if any of them compiles.
import { admitRequest } from '../../service/src/accounts/rate-limit-policy';
import { createManualClock, nowMicros, nowMillis } from '../../service/src/core/clock';
import {
  microsFromMillis,
  microsFromSeconds,
  millisFromMicros,
  secondsFromMicros,
  type Micros,
  type Millis,
} from '../../service/src/core/time';
import { signingSecrets } from '../../service/src/delivery/signing-secrets';
import { circuitAt } from '../../service/src/delivery/endpoint-health';
import { UNKNOWN_ENDPOINT } from '../../service/src/domain/endpoint-health';

const clock = createManualClock(1_700_000_000_123_456_789n);
const budget = { limitPerMinute: 10, cooldownMs: 300_000 };
const sealed = { sealedSecret: 's', previousSealedSecret: null, previousSecretUntil: null };

test('a microsecond instant is refused where milliseconds are expected, and the other way round', () => {
  const micros: Micros = nowMicros(clock);
  const millis: Millis = nowMillis(clock);
  // @ts-expect-error a rate window counts in milliseconds
  expect(() => admitRequest(undefined, micros, budget)).not.toThrow();
  // @ts-expect-error a secret's overlap ends at an instant in microseconds
  expect(signingSecrets(sealed, millis, (value) => value)).toBeDefined();
  // @ts-expect-error the circuit's times are microseconds
  expect(circuitAt(UNKNOWN_ENDPOINT, millis)).toEqual({ state: 'closed' });
  // The converted values fit, and so does a plain number (a literal, a column, a sum).
  expect(admitRequest(undefined, millisFromMicros(micros), budget).allowed).toBe(true);
  expect(circuitAt(UNKNOWN_ENDPOINT, microsFromMillis(millis))).toEqual({ state: 'closed' });
  expect(circuitAt(UNKNOWN_ENDPOINT, 42)).toEqual({ state: 'closed' });
});

test('conversions between units round down to whole units', () => {
  expect(nowMicros(clock)).toBe(1_700_000_000_123_456);
  expect(millisFromMicros(nowMicros(clock))).toBe(nowMillis(clock));
  expect(secondsFromMicros(1_700_000_000_999_999)).toBe(1_700_000_000);
  expect(microsFromSeconds(2)).toBe(2_000_000);
  expect(microsFromMillis(3)).toBe(3000);
});
