// The few DER encodings (ITU-T X.690) a self-signed certificate is made of: each function returns one whole
// element, tag, length and contents, so that a certificate is written as nested calls in its own order.

/** Tag, length (short or long form) and contents. */
function element(tag: number, contents: Uint8Array): Buffer {
  const length = contents.length;
  let header: number[];
  if (length < 0x80) header = [tag, length];
  else if (length < 0x100) header = [tag, 0x81, length];
  else if (length < 0x10000) header = [tag, 0x82, length >> 8, length & 0xff];
  else throw new RangeError(`DER: ${length} bytes is longer than a certificate element can be here`);
  return Buffer.concat([Buffer.from(header), contents]);
}

export const sequence = (...items: Uint8Array[]): Buffer => element(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => element(0x31, Buffer.concat(items));
export const octetString = (contents: Uint8Array): Buffer => element(0x04, contents);
export const utf8String = (text: string): Buffer => element(0x0c, Buffer.from(text, 'utf8'));
export const booleanTrue = (): Buffer => element(0x01, Buffer.from([0xff]));
/** A context-specific, constructed tag around one element: [n] EXPLICIT. */
export const explicit = (tagNumber: number, inner: Uint8Array): Buffer => element(0xa0 | tagNumber, inner);
/** A context-specific, primitive tag in place of the element's own: [n] IMPLICIT, on a string's bytes. */
export const implicitText = (tagNumber: number, text: string): Buffer =>
  element(0x80 | tagNumber, Buffer.from(text, 'ascii'));

/** A non-negative INTEGER from its big-endian bytes, in the fewest bytes DER allows. */
export function unsignedInteger(bytes: Uint8Array): Buffer {
  if (bytes.length === 0) throw new RangeError('DER: an INTEGER needs at least one byte');
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const minimal = bytes.subarray(start);
  // A leading bit of 1 would make it negative.
  return element(0x02, (minimal[0]! & 0x80) === 0 ? minimal : Buffer.concat([Buffer.from([0]), minimal]));
}

/** A BIT STRING of whole bytes, or of `bits` bits of them (its last byte's other bits zero). */
export function bitString(bytes: Uint8Array, bits = bytes.length * 8): Buffer {
  const unused = bytes.length * 8 - bits;
  if (unused < 0 || unused > 7) throw new RangeError(`DER: ${bits} bits do not fit ${bytes.length} bytes`);
  return element(0x03, Buffer.concat([Buffer.from([unused]), bytes]));
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes: number[] = [];
  for (const arc of [arcs[0]! * 40 + arcs[1]!, ...arcs.slice(2)]) {
    // Base 128, most significant group first, every byte but the last with its high bit set; in arithmetic, not
    // bitwise, as an arc may be above 2^31.
    const groups = [arc % 128];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) groups.unshift((rest % 128) + 0x80);
    bytes.push(...groups);
  }
  return element(0x06, Buffer.from(bytes));
}

/** A certificate's time: UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280, 4.1.2.5), to the second. */
export function time(at: Date): Buffer {
  const digits = at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:T]/g, '');
  return at.getUTCFullYear() < 2050 ? element(0x17, Buffer.from(digits.slice(2))) : element(0x18, Buffer.from(digits));
}
