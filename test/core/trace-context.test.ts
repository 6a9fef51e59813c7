// W3C Trace Context as the service reads and writes it: a caller's traceparent and tracestate taken in (or
// ignored when invalid), and the traceparent of each attempt, made without any tracing SDK.
import { createPooledRandomBytes } from '../../service/src/core/random';
import {
  childTraceparent,
  cleanTracestate,
  formatTraceparent,
  parseTraceparent,
  randomSpanId,
  traceOf,
} from '../../service/src/core/trace-context';
import {
  attemptHeadersWithoutExport,
  createHeadersOnlyTracing,
  eventTraceWithoutExport,
} from '../../service/src/core/tracing';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const random = createPooledRandomBytes();

test.each([
  [`00-${TRACE}-${SPAN}-01`, { traceId: TRACE, spanId: SPAN, sampled: true }],
  [`00-${TRACE}-${SPAN}-00`, { traceId: TRACE, spanId: SPAN, sampled: false }],
  // Only the sampled bit is read; other flags are the caller's.
  [`00-${TRACE}-${SPAN}-03`, { traceId: TRACE, spanId: SPAN, sampled: true }],
  [` 00-${TRACE}-${SPAN}-01 `, { traceId: TRACE, spanId: SPAN, sampled: true }],
  // A later version is read by its first four fields, whatever follows them after a dash.
  [`01-${TRACE}-${SPAN}-01-what-comes-later`, { traceId: TRACE, spanId: SPAN, sampled: true }],
  [`01-${TRACE}-${SPAN}-01`, { traceId: TRACE, spanId: SPAN, sampled: true }],
])('traceparent %s is read', (header, expected) => {
  expect(parseTraceparent(header)).toEqual(expected);
});

test.each([
  ['absent', undefined],
  ['empty', ''],
  ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
  ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
  ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
  ['version ff', `ff-${TRACE}-${SPAN}-01`],
  ['version 00 with more after it', `00-${TRACE}-${SPAN}-01-extra`],
  ['a later version glued to more', `01-${TRACE}-${SPAN}-01extra`],
  ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
  ['no flags', `00-${TRACE}-${SPAN}`],
  ['not hex', `00-${TRACE.slice(0, 31)}g-${SPAN}-01`],
  ['sent twice', [`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01`]],
])('a traceparent that is %s is ignored', (_what, header) => {
  expect(parseTraceparent(header)).toBeNull();
});

test('a traceparent is written in version 00, and read back as written', () => {
  const written = formatTraceparent({ traceId: TRACE, spanId: SPAN, sampled: true });
  expect(written).toBe(`00-${TRACE}-${SPAN}-01`);
  expect(traceOf(written)).toEqual(parseTraceparent(written));
  expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, sampled: false })).toBe(`00-${TRACE}-${SPAN}-00`);
});

test("a child keeps its parent's trace and flags and has its own span id", () => {
  const child = randomSpanId(random);
  expect(childTraceparent(`00-${TRACE}-${SPAN}-00`, child)).toBe(`00-${TRACE}-${child}-00`);
  expect(child).toMatch(/^[0-9a-f]{16}$/);
});

test('random ids are never all zeros, the one value the spec forbids', () => {
  const zeros = (size: number) => Buffer.alloc(size);
  expect(randomSpanId(zeros)).toBe('0000000000000001');
});

test.each([
  ['one member', 'vendor=value', 'vendor=value'],
  ['spaces around members, and empty members', ' a=1 ,, b=2 ', 'a=1,b=2'],
  ['several headers, one list', ['a=1', 'b=2'], 'a=1,b=2'],
  ['a multi-tenant key', 'tenant@system=v', 'tenant@system=v'],
])('a tracestate with %s is kept', (_what, header, expected) => {
  expect(cleanTracestate(header)).toBe(expected);
});

test.each([
  ['absent', undefined],
  ['empty', ' , '],
  ['an upper-case key', 'Vendor=1'],
  ['no value', 'vendor='],
  ['an = in the value', 'vendor=a=b'],
  ['a key twice', 'a=1,a=2'],
  ['more than 32 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
])('a tracestate with %s is dropped whole', (_what, header) => {
  expect(cleanTracestate(header)).toBeNull();
});

test('a tracestate over 512 characters loses its long members first, then its last ones', () => {
  const long = `long=${'x'.repeat(200)}`;
  const short = Array.from({ length: 20 }, (_, i) => `k${i}=${'v'.repeat(30)}`);
  const kept = cleanTracestate([long, ...short].join(','))!;
  expect(kept.length).toBeLessThanOrEqual(512);
  expect(kept).not.toContain('long=');
  expect(kept.split(',')).toEqual(short.slice(0, kept.split(',').length));
  expect(kept.split(',').length).toBe(14);
});

describe('without exported traces', () => {
  test("an event taken in with a valid traceparent joins the caller's trace, under a span of its own", () => {
    const trace = eventTraceWithoutExport({ traceparent: `00-${TRACE}-${SPAN}-00`, tracestate: 'vendor=1' }, random);
    const parent = traceOf(trace.traceparent);
    expect(parent).toMatchObject({ traceId: TRACE, sampled: false });
    expect(parent.spanId).not.toBe(SPAN);
    expect(trace.tracestate).toBe('vendor=1');
  });

  test('an event taken in without a valid traceparent starts a sampled trace, and its tracestate is dropped', () => {
    const trace = eventTraceWithoutExport({ traceparent: 'garbage', tracestate: 'vendor=1' }, random);
    expect(parseTraceparent(trace.traceparent)).toMatchObject({ sampled: true });
    expect(traceOf(trace.traceparent).traceId).not.toBe(TRACE);
    expect(trace.tracestate).toBeNull();
  });

  test("each attempt is a new child of the event's ingestion span; with no stored context, a trace of its own", () => {
    const event = { traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'vendor=1' };
    const first = attemptHeadersWithoutExport(event, random);
    const second = attemptHeadersWithoutExport(event, random);
    expect(traceOf(first.traceparent)).toMatchObject({ traceId: TRACE, sampled: true });
    expect(new Set([SPAN, traceOf(first.traceparent).spanId, traceOf(second.traceparent).spanId]).size).toBe(3);
    expect(first.tracestate).toBe('vendor=1');
    const alone = attemptHeadersWithoutExport(null, random);
    expect(traceOf(alone.traceparent).traceId).not.toBe(TRACE);
    expect(alone.tracestate).toBeNull();
  });

  test('the headers-only tracing exports nothing and closes at once', async () => {
    const tracing = createHeadersOnlyTracing(random);
    expect(tracing.exporting).toBe(false);
    const span = tracing.ingestion({ traceparent: undefined, tracestate: undefined });
    expect(parseTraceparent(span.trace.traceparent)).not.toBeNull();
    await expect(tracing.close()).resolves.toBeUndefined();
  });
});
