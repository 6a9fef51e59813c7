// The service's random source: OS randomness drawn a block at a time, each byte handed out once.
import { randomFillSync } from 'node:crypto';
import { createManualClock } from '../../service/src/core/clock';
import { createIdGenerator, isIdOf } from '../../service/src/core/ids';
import { createPooledRandomBytes, type RandomBytes } from '../../service/src/core/random';

function countingFill() {
  const sizes: number[] = [];
  const fill = (buffer: Buffer) => {
    sizes.push(buffer.length);
    return randomFillSync(buffer);
  };
  return { fill, sizes };
}

test('draws of a few bytes are served from one 4 KiB fill, and a larger draw gets its own', () => {
  const { fill, sizes } = countingFill();
  const random = createPooledRandomBytes(fill);
  for (let i = 0; i < 256; i += 1) expect(random(16)).toHaveLength(16);
  expect(sizes).toEqual([4096]);
  expect(random(1)).toHaveLength(1);
  expect(sizes).toEqual([4096, 4096]);
  expect(random(10_000)).toHaveLength(10_000);
  expect(sizes).toEqual([4096, 4096, 10_000]);
});

test('no two draws share bytes, and a draw is a copy its caller may change', () => {
  const random = createPooledRandomBytes();
  const draws = Array.from({ length: 1000 }, () => random(16).toString('hex'));
  expect(new Set(draws).size).toBe(1000);
  const first = random(8);
  const copy = Buffer.from(first);
  first.fill(0);
  const next = random(8);
  expect(next.equals(Buffer.alloc(8))).toBe(false);
  expect(copy.equals(Buffer.alloc(8))).toBe(false);
});

test('an id takes one draw of 16 bytes, and the same bytes and time make the same id', () => {
  const requests: number[] = [];
  const fixed: RandomBytes = (size) => {
    requests.push(size);
    return Buffer.alloc(size, 7);
  };
  const clock = createManualClock();
  const ids = createIdGenerator(clock, fixed);
  const first = ids.next('delivery');
  expect(requests).toEqual([16]);
  expect(isIdOf('delivery', first)).toBe(true);
  expect(ids.next('delivery')).toBe(first);
});
