// What the delivery log keeps of a receiver's answer: text that both databases store and every page shows
// inertly, whatever bytes the receiver sent (docs/api-contract.md#11-delivery-log-and-redelivery). A receiver is
// anyone who controls a URL, so none of its bytes may decide whether a result can be recorded.

/** The delivery log keeps the first 4 KiB of a response body, and response headers up to 4 KiB in all. */
export const RESPONSE_EXCERPT_BYTES = 4096;
/** One header's value is cut to this, so one long header cannot take the whole budget from the others. */
export const HEADER_VALUE_BYTES = 1024;
/** What stands in for a character no text column stores (NUL) or no UTF-8 encodes (a lone surrogate). */
export const REPLACEMENT_CHARACTER = '\uFFFD';
/** What a masked header's value reads in the log. */
export const MASKED_VALUE = '(masked)';
/** Response headers that carry credentials: their values are never kept, whatever the settings say. */
export const ALWAYS_MASKED_HEADERS: readonly string[] = [
  'authorization',
  'cookie',
  'proxy-authorization',
  'set-cookie',
];

/** The mark at the end of a header value that was cut. */
const CUT_MARK = '…';
/** The bytes a kept header adds besides its name and value: ": " and the line end. */
const HEADER_LINE_OVERHEAD = 4;

// PostgreSQL's text refuses U+0000; a lone surrogate has no UTF-8 form (drivers would write U+FFFD silently).
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every character no database text column can hold replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, REPLACEMENT_CHARACTER);
}

/** The longest start of `bytes` within `max` that does not end inside a UTF-8 character. */
function cutAtCharacter(bytes: Buffer, max: number): Buffer {
  if (bytes.length <= max) return bytes;
  let end = max;
  // bytes[end] is the first byte left out: while it continues a character, that character is left out whole.
  while (end > max - 3 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end);
}

/** Bytes as storable text: UTF-8, with each invalid sequence and each NUL shown as U+FFFD. */
function textOf(bytes: Buffer, max: number): string {
  return storableText(cutAtCharacter(bytes, max).toString('utf8'));
}

/** The first 4 KiB of a response body as the log keeps it; a character cut by the limit is left out. */
export function bodyExcerpt(body: Buffer): string {
  return textOf(body, RESPONSE_EXCERPT_BYTES);
}

/** Text that is its own storable UTF-8 reading: no NUL, and every character one byte below 0x80. */
const PLAIN_ASCII = /^[\u0001-\u007f]*$/;

/**
 * A header value as undici gives it (each byte one Latin-1 character) turned back into its bytes and read as
 * UTF-8, which is what receivers send; a value cut at HEADER_VALUE_BYTES ends with "…". Nearly every header is
 * plain ASCII within the limit, which reads as itself: it is returned as it is, with no copy to bytes and back.
 */
function headerText(value: string): string {
  if (value.length <= HEADER_VALUE_BYTES && PLAIN_ASCII.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  const text = textOf(bytes, HEADER_VALUE_BYTES);
  return bytes.length > HEADER_VALUE_BYTES ? `${text}${CUT_MARK}` : text;
}

/** The names always masked plus the operator's own (JOBHOOKS_MASKED_RESPONSE_HEADERS), lower-cased. */
export function maskedHeaderNames(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([...ALWAYS_MASKED_HEADERS, ...extra.map((name) => name.toLowerCase())]);
}

/** The headers with the values of the masked ones replaced: names stay, so the log shows that they came. */
export function maskHeaders(headers: Record<string, string>, masked: ReadonlySet<string>): Record<string, string> {
  // fromEntries, not assignment: a header named __proto__ is a key like any other.
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, masked.has(name.toLowerCase()) ? MASKED_VALUE : value]),
  );
}

/**
 * A response's headers as the log keeps them: a repeated header joined with ", ", masked values replaced, each
 * value cut to HEADER_VALUE_BYTES, and as many headers as fit in RESPONSE_EXCERPT_BYTES, in the order they came;
 * one that does not fit is left out and the ones after it still count.
 */
export function keptHeaders(
  headers: Record<string, string | string[] | undefined>,
  masked: ReadonlySet<string>,
): Record<string, string> {
  const kept: Array<[string, string]> = [];
  let left = RESPONSE_EXCERPT_BYTES;
  for (const [rawName, rawValue] of Object.entries(headers)) {
    if (rawValue === undefined) continue;
    const name = headerText(rawName);
    const value = masked.has(name.toLowerCase())
      ? MASKED_VALUE
      : headerText(Array.isArray(rawValue) ? rawValue.join(', ') : rawValue);
    const size = Buffer.byteLength(name) + Buffer.byteLength(value) + HEADER_LINE_OVERHEAD;
    if (size > left) continue;
    kept.push([name, value]);
    left -= size;
  }
  // fromEntries, not assignment: a header named __proto__ is kept like any other.
  return Object.fromEntries(kept);
}
