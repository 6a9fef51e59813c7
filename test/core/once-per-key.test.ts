// A lookup that reads each key once, for the rows a batch shares inside one transaction.
import { oncePerKey } from '../../service/src/core/once-per-key';

test('each key is read at its first use only, and every later call gets the same value', () => {
  const read = jest.fn((key: string) => ({ key }));
  const lookup = oncePerKey(read);
  const first = lookup('a');
  expect(lookup('a')).toBe(first);
  expect(lookup('b')).toEqual({ key: 'b' });
  expect(read.mock.calls).toEqual([['a'], ['b']]);
});

test('a value that is undefined is kept too, not read again', () => {
  const read = jest.fn((): undefined => undefined);
  const lookup = oncePerKey(read);
  lookup(1);
  lookup(1);
  expect(read).toHaveBeenCalledTimes(1);
});

test('a read that throws keeps nothing: the next call reads again', () => {
  let calls = 0;
  const lookup = oncePerKey((key: number) => {
    calls += 1;
    if (calls === 1) throw new Error('not yet');
    return key * 2;
  });
  expect(() => lookup(1)).toThrow('not yet');
  expect(lookup(1)).toBe(2);
});
