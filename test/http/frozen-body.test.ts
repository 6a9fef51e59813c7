// Frozen bodies: what the response serializer may keep the JSON of, because nothing can change it afterwards.
import { frozenBody, isFrozenBody, okEnvelopeOf } from '../../service/src/http/frozen-body';

test('freezes the body and everything it holds, even inside an object that was frozen already', () => {
  const tags = ['a'];
  const body = frozenBody({ data: Object.freeze({ tags, nested: { n: 1 } }) });
  expect(Object.isFrozen(body)).toBe(true);
  expect(Object.isFrozen(tags)).toBe(true);
  expect(Object.isFrozen(body.data.nested)).toBe(true);
  expect(() => tags.push('b')).toThrow(TypeError);
});

test('only bodies made by frozenBody count as frozen bodies: Object.freeze alone freezes one level', () => {
  expect(isFrozenBody(frozenBody({ a: 1 }))).toBe(true);
  expect(isFrozenBody(Object.freeze({ a: [1] }))).toBe(false);
  expect(isFrozenBody({ a: 1 })).toBe(false);
  expect(isFrozenBody(null)).toBe(false);
  expect(isFrozenBody('{"a":1}')).toBe(false);
});

test('okEnvelopeOf answers the same frozen envelope for the same data, and a new one for other data', () => {
  const data = { id: 'x' };
  const envelope = okEnvelopeOf(data);
  expect(envelope).toEqual({ data: { id: 'x' }, status: { code: 200 } });
  expect(okEnvelopeOf(data)).toBe(envelope);
  expect(isFrozenBody(envelope)).toBe(true);
  expect(Object.isFrozen(data)).toBe(true);
  expect(okEnvelopeOf({ id: 'x' })).not.toBe(envelope);
});
