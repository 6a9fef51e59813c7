// The bounded map behind the in-memory caches: never more than its limit, and starting over when full.
import { BoundedMap } from '../../service/src/core/bounded-map';

test('adding a key past the limit starts the map over with that key alone', () => {
  const map = new BoundedMap<string, number>(2);
  map.set('a', 1).set('b', 2);
  map.set('c', 3);
  expect([...map]).toEqual([['c', 3]]);
});

test('replacing a key that is already there does not count as one more', () => {
  const map = new BoundedMap<string, number>(2);
  map.set('a', 1).set('b', 2);
  map.set('b', 20);
  expect([...map]).toEqual([
    ['a', 1],
    ['b', 20],
  ]);
});
