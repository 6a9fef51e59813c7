// W3C Trace Context (`traceparent`, `tracestate`): reading what a caller sent, and writing what a receiver gets.
// Pure string work, so the headers cost next to nothing when no traces are exported (docs/tracing.md).
import type { RandomBytes } from './random';

/** The trace context stored with an event: its `traceparent` names the event's ingestion span. */
export interface EventTrace {
  /** `00-<trace id>-<ingestion span id>-<flags>`, as written by formatTraceparent. */
  traceparent: string;
  /** The caller's `tracestate`, cleaned by cleanTracestate; null when there was none. */
  tracestate: string | null;
}

/** A `traceparent` read: its ids as lowercase hex, and whether the caller sampled it. */
export interface TraceParent {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

/** The sampled flag, the only trace flag this service sets (W3C Trace Context level 1). */
export const SAMPLED_FLAG = 0x01;
/** The one version written; a later version is read by its first four fields. */
const VERSION = '00';
/** `00-` + 32 + `-` + 16 + `-` + 2. */
const VERSION_00_LENGTH = 55;
const TRACE_PARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** A header as Node hands it over: absent, one value, or several (a list header sent more than once). */
export type HeaderValue = string | readonly string[] | undefined;

/**
 * The caller's trace, or null when the header is absent or invalid (the spec's rule: an invalid `traceparent`
 * is ignored and a new trace starts). Several `traceparent` headers are invalid too.
 */
export function parseTraceparent(header: HeaderValue): TraceParent | null {
  if (typeof header !== 'string') return null;
  const value = header.trim();
  const match = TRACE_PARENT.exec(value);
  if (match === null) return null;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version === 'ff') return null;
  // Version 00 has exactly these fields; a later version may add fields after a dash.
  if (
    version === VERSION
      ? value.length !== VERSION_00_LENGTH
      : value.length > VERSION_00_LENGTH && value[VERSION_00_LENGTH] !== '-'
  )
    return null;
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return null;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & SAMPLED_FLAG) !== 0 };
}

export function formatTraceparent(parent: TraceParent): string {
  return `${VERSION}-${parent.traceId}-${parent.spanId}-${parent.sampled ? '01' : '00'}`;
}

/** The trace a stored `traceparent` names (one formatTraceparent wrote, so always valid). */
export function traceOf(traceparent: string): TraceParent {
  return {
    traceId: traceparent.slice(3, 35),
    spanId: traceparent.slice(36, 52),
    sampled: traceparent.endsWith('01'),
  };
}

/**
 * The `traceparent` of a child of the span a stored `traceparent` names: the same trace and flags, the child's
 * span id. A slice, not a parse: it runs on every attempt.
 */
export function childTraceparent(parent: string, spanId: string): string {
  return `${parent.slice(0, 36)}${spanId}${parent.slice(52)}`;
}

/** Random ids for a trace and a span, never all zeros (the spec's invalid value). */
export function randomTraceId(random: RandomBytes): string {
  return nonZeroHex(random(16));
}

export function randomSpanId(random: RandomBytes): string {
  return nonZeroHex(random(8));
}

function nonZeroHex(bytes: Buffer): string {
  if (bytes.every((byte) => byte === 0)) bytes[bytes.length - 1] = 1;
  return bytes.toString('hex');
}

/** The most list members a `tracestate` has (W3C Trace Context). */
const TRACESTATE_MEMBERS = 32;
/** What this service passes on at least; a longer `tracestate` is cut down as the spec says. */
const TRACESTATE_KEPT_CHARS = 512;
/** Members longer than this go first when a `tracestate` must be cut down. */
const TRACESTATE_LONG_MEMBER = 128;
const TRACESTATE_KEY = /^(?:[a-z][a-z0-9_*/-]{0,255}|[a-z0-9][a-z0-9_*/-]{0,240}@[a-z][a-z0-9_*/-]{0,13})$/;
/** Printable ASCII but `,` and `=`, at most 256 characters, not ending in a space. */
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * The `tracestate` to keep with an event, or null: absent, empty or invalid (the spec's rule: an invalid
 * `tracestate` is dropped whole). Several headers are one list; empty members are dropped, and a list longer
 * than 512 characters loses its members over 128 characters, then its last members, until it fits.
 */
export function cleanTracestate(header: HeaderValue): string | null {
  if (header === undefined) return null;
  const joined = typeof header === 'string' ? header : header.join(',');
  const members = joined
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
  if (members.length === 0 || members.length > TRACESTATE_MEMBERS) return null;
  const keys = new Set<string>();
  for (const member of members) {
    const equals = member.indexOf('=');
    const key = member.slice(0, equals);
    if (equals < 1 || !TRACESTATE_KEY.test(key) || !TRACESTATE_VALUE.test(member.slice(equals + 1))) return null;
    // A key appears once in a list.
    if (keys.has(key)) return null;
    keys.add(key);
  }
  const kept = fitted(members);
  return kept.length === 0 ? null : kept.join(',');
}

function fitted(members: string[]): string[] {
  const length = (list: string[]) => list.join(',').length;
  let kept = members;
  if (length(kept) > TRACESTATE_KEPT_CHARS) kept = kept.filter((member) => member.length <= TRACESTATE_LONG_MEMBER);
  while (length(kept) > TRACESTATE_KEPT_CHARS) kept = kept.slice(0, -1);
  return kept;
}
