// What the delivery log keeps of a receiver's answer: storable text whatever the bytes, headers kept fairly within
// their budget, credential headers masked.
import fc from 'fast-check';
import {
  bodyExcerpt,
  HEADER_VALUE_BYTES,
  keptHeaders,
  MASKED_VALUE,
  maskedHeaderNames,
  maskHeaders,
  RESPONSE_EXCERPT_BYTES,
  storableText,
} from '../../service/src/delivery/answer-excerpt';

const NONE = maskedHeaderNames();
/** Latin-1 text of bytes, as undici gives a header value. */
const asUndiciGivesIt = (bytes: Buffer | string) => Buffer.from(bytes).toString('latin1');
/** True when the text holds nothing PostgreSQL text or UTF-8 refuses: no NUL, no lone surrogate. */
const isStorable = (text: string) => !text.includes('\u0000') && Buffer.from(text, 'utf8').toString('utf8') === text;

describe('bodyExcerpt', () => {
  test.each([
    ['plain text stays as it is', Buffer.from('ok: {"a":1}\n\ttab'), 'ok: {"a":1}\n\ttab'],
    ['a NUL byte reads as U+FFFD', Buffer.from('before\u0000after'), 'before\uFFFDafter'],
    ['an invalid UTF-8 sequence reads as U+FFFD', Buffer.from([0x61, 0xc3, 0x28, 0x62]), 'a\uFFFD(b'],
    ['an encoded surrogate reads as U+FFFD per byte', Buffer.from([0xed, 0xa0, 0x80]), '\uFFFD\uFFFD\uFFFD'],
    ['multi-byte characters stay whole', Buffer.from('café ✓ 𝄞'), 'café ✓ 𝄞'],
    ['other control characters are kept', Buffer.from('\u0001\u001b[31m\u007f'), '\u0001\u001b[31m\u007f'],
  ])('%s', (_what, body, expected) => {
    expect(bodyExcerpt(body)).toBe(expected);
  });

  test('keeps the first 4 KiB, and leaves out a character the limit would cut in two', () => {
    const ascii = Buffer.from('a'.repeat(RESPONSE_EXCERPT_BYTES + 10));
    expect(bodyExcerpt(ascii)).toBe('a'.repeat(RESPONSE_EXCERPT_BYTES));
    // Three bytes before the limit, then a four-byte character across it: left out whole, not half as U+FFFD.
    const cut = Buffer.concat([Buffer.from('a'.repeat(RESPONSE_EXCERPT_BYTES - 2)), Buffer.from('𝄞𝄞')]);
    expect(bodyExcerpt(cut)).toBe('a'.repeat(RESPONSE_EXCERPT_BYTES - 2));
    const exact = Buffer.concat([Buffer.from('a'.repeat(RESPONSE_EXCERPT_BYTES - 4)), Buffer.from('𝄞x')]);
    expect(bodyExcerpt(exact)).toBe(`${'a'.repeat(RESPONSE_EXCERPT_BYTES - 4)}𝄞`);
  });

  test('any bytes give storable text that starts with what the first 4 KiB say', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 6000 }), (bytes) => {
        const excerpt = bodyExcerpt(Buffer.from(bytes));
        expect(isStorable(excerpt)).toBe(true);
        const valid = Buffer.from(bytes).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
        // Where the bytes are valid UTF-8 without NUL and not cut, they come back unchanged.
        if (bytes.length <= RESPONSE_EXCERPT_BYTES && isStorable(valid) && !valid.includes('\uFFFD'))
          expect(excerpt).toBe(valid);
      }),
      { numRuns: 500 },
    );
  });
});

describe('storableText', () => {
  test.each([
    ['NUL becomes U+FFFD', 'a\u0000b', 'a\uFFFDb'],
    ['a lone high surrogate becomes U+FFFD', 'a\uD800b', 'a\uFFFDb'],
    ['a lone low surrogate becomes U+FFFD', 'a\uDC00', 'a\uFFFD'],
    ['a surrogate pair stays', 'a\uD834\uDD1E', 'a\uD834\uDD1E'],
  ])('%s', (_what, text, expected) => {
    expect(storableText(text)).toBe(expected);
  });
});

describe('keptHeaders', () => {
  test('a header over the budget is left out; the headers after it are kept', () => {
    const headers = {
      'x-first': 'a'.repeat(900),
      'x-second': 'b'.repeat(900),
      'x-third': 'c'.repeat(900),
      'x-fourth': 'd'.repeat(900),
      'x-fifth': 'e'.repeat(900),
      'content-type': 'text/plain',
      'x-request-id': 'req-1',
    };
    const kept = keptHeaders(headers, NONE);
    // Four values of 900 bytes fit in 4 KiB, the fifth does not; the two small ones after it still do.
    expect(Object.keys(kept)).toEqual(['x-first', 'x-second', 'x-third', 'x-fourth', 'content-type', 'x-request-id']);
  });

  test('a long value is cut at 1 KiB and marked, so one header cannot take the whole budget', () => {
    const kept = keptHeaders({ 'x-huge': 'h'.repeat(10_000), 'x-after': 'kept' }, NONE);
    expect(kept['x-huge']).toBe(`${'h'.repeat(HEADER_VALUE_BYTES)}…`);
    expect(kept['x-after']).toBe('kept');
  });

  test('a value of exactly 1 KiB is kept whole, unmarked; one byte more is cut; control characters and DEL stay', () => {
    const kept = keptHeaders(
      {
        'x-exact': 'e'.repeat(HEADER_VALUE_BYTES),
        'x-over': 'o'.repeat(HEADER_VALUE_BYTES + 1),
        'x-controls': 'tab\there\u0001\u007f',
      },
      NONE,
    );
    expect(kept['x-exact']).toBe('e'.repeat(HEADER_VALUE_BYTES));
    expect(kept['x-over']).toBe(`${'o'.repeat(HEADER_VALUE_BYTES)}…`);
    expect(kept['x-controls']).toBe('tab\there\u0001\u007f');
  });

  test('values are read as UTF-8, with invalid bytes and NUL as U+FFFD; repeated headers are joined', () => {
    const kept = keptHeaders(
      {
        'x-utf8': asUndiciGivesIt('café €'),
        'x-bytes': asUndiciGivesIt(Buffer.from([0x61, 0xff, 0x00, 0x62])),
        vary: ['accept', 'origin'],
      },
      NONE,
    );
    expect(kept).toEqual({ 'x-utf8': 'café €', 'x-bytes': 'a\uFFFD\uFFFDb', vary: 'accept, origin' });
  });

  test('credential headers and the operator’s own are kept by name with their values masked', () => {
    const masked = maskedHeaderNames(['X-Api-Key']);
    const kept = keptHeaders(
      {
        'set-cookie': ['session=secret; HttpOnly', 'other=1'],
        authorization: 'Bearer abc',
        'proxy-authorization': 'Basic xyz',
        cookie: 'a=b',
        'x-api-key': 'k-123',
        'x-other': 'shown',
      },
      masked,
    );
    expect(kept).toEqual({
      'set-cookie': MASKED_VALUE,
      authorization: MASKED_VALUE,
      'proxy-authorization': MASKED_VALUE,
      cookie: MASKED_VALUE,
      'x-api-key': MASKED_VALUE,
      'x-other': 'shown',
    });
    expect(JSON.stringify(kept)).not.toMatch(/secret|abc|xyz|k-123/);
  });

  test('many headers of any bytes are kept within the budget, as storable text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 20 }), fc.uint8Array({ maxLength: 3000 })), {
          maxLength: 60,
        }),
        (pairs) => {
          const headers = Object.fromEntries(pairs.map(([name, value]) => [name, asUndiciGivesIt(Buffer.from(value))]));
          const kept = keptHeaders(headers, NONE);
          let size = 0;
          for (const [name, value] of Object.entries(kept)) {
            expect(isStorable(name) && isStorable(value)).toBe(true);
            size += Buffer.byteLength(name) + Buffer.byteLength(value) + 4;
          }
          expect(size).toBeLessThanOrEqual(RESPONSE_EXCERPT_BYTES);
        },
      ),
      { numRuns: 300 },
    );
  });
});

test('a header named __proto__ is kept like any other', () => {
  // As undici gives it: an own key (JSON.parse makes one; an object literal would set the prototype instead).
  const kept = keptHeaders(JSON.parse('{"__proto__":"x","set-cookie":"secret"}') as Record<string, string>, NONE);
  expect(Object.keys(kept)).toEqual(['__proto__', 'set-cookie']);
  expect(JSON.parse(JSON.stringify(maskHeaders(kept, maskedHeaderNames())))).toEqual(
    JSON.parse('{"__proto__":"x","set-cookie":"(masked)"}'),
  );
});

test('maskHeaders masks by name whatever the case, and leaves the others', () => {
  expect(maskHeaders({ 'Set-Cookie': 'a=1', 'x-token': 't', 'x-ok': 'ok' }, maskedHeaderNames(['x-token']))).toEqual({
    'Set-Cookie': MASKED_VALUE,
    'x-token': MASKED_VALUE,
    'x-ok': 'ok',
  });
});
