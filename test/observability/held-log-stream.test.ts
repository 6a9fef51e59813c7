// The start-up log holder: lines wait, in order, until released; a start that logs too much lets them out early.
import { createHeldLogStream } from '../../service/src/observability/held-log-stream';

test('lines are held until release, then written in order, and later lines go straight through', () => {
  const written: string[] = [];
  const logs = createHeldLogStream((text) => written.push(text));
  logs.write('{"msg":"a"}\n');
  logs.write('{"msg":"b"}\n');
  expect(written).toEqual([]);
  logs.release();
  expect(written).toEqual(['{"msg":"a"}\n{"msg":"b"}\n']);
  logs.write('{"msg":"c"}\n');
  logs.release();
  expect(written).toEqual(['{"msg":"a"}\n{"msg":"b"}\n', '{"msg":"c"}\n']);
});

test('past the most it holds, the held lines go out rather than grow', () => {
  const written: string[] = [];
  const logs = createHeldLogStream((text) => written.push(text), 3);
  for (const name of ['a', 'b', 'c', 'd']) logs.write(`${name}\n`);
  expect(written).toEqual(['a\nb\nc\n', 'd\n']);
});
