// Terraform values on the wire (plugin protocol "object wire format"): msgpack, where null is nil and an
// unknown value (known only after apply) is any msgpack extension; code 12 carries refinements, which are
// always safe to ignore. We answer with msgpack only, and write unknowns in the plain form (code 0).
import { decode, encode, ExtData } from '@msgpack/msgpack';

/** A value Terraform will only know at apply time (a reference to a resource not created yet, say). */
export class Unknown {
  private constructor() {}
  static readonly value = new Unknown();
}
export const UNKNOWN = Unknown.value;

export type TfValue = null | string | number | boolean | Unknown | TfValue[] | TfObject;
export interface TfObject {
  [attribute: string]: TfValue;
}

function fromWire(value: unknown): TfValue {
  if (value instanceof ExtData) return UNKNOWN;
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(fromWire);
  if (typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fromWire(item)]));
  if (typeof value === 'bigint') return Number(value);
  return value as string | number | boolean;
}

function toWire(value: TfValue): unknown {
  if (value instanceof Unknown) return new ExtData(0, new Uint8Array([0]));
  if (Array.isArray(value)) return value.map(toWire);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toWire(item)]));
  return value;
}

/** Decodes a DynamicValue; JSON is the protocol's fallback when msgpack is empty (e.g. raw state). */
export function decodeDynamic(dynamic: { msgpack?: Uint8Array; json?: Uint8Array } | null | undefined): TfValue {
  if (dynamic?.msgpack && dynamic.msgpack.length > 0) return fromWire(decode(dynamic.msgpack));
  if (dynamic?.json && dynamic.json.length > 0) return fromWire(JSON.parse(Buffer.from(dynamic.json).toString('utf8')));
  return null;
}

export function encodeDynamic(value: TfValue): { msgpack: Buffer } {
  return { msgpack: Buffer.from(encode(toWire(value))) };
}

/** True when the value, and everything inside it, is known. */
export function isWhollyKnown(value: TfValue): boolean {
  if (value instanceof Unknown) return false;
  if (Array.isArray(value)) return value.every(isWhollyKnown);
  if (value !== null && typeof value === 'object') return Object.values(value).every(isWhollyKnown);
  return true;
}

export function isObject(value: TfValue): value is TfObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Unknown);
}

/** Deep equality of two values; an unknown equals nothing, as it may become anything. */
export function sameValue(a: TfValue, b: TfValue): boolean {
  if (a instanceof Unknown || b instanceof Unknown) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => sameValue(item, b[i] ?? null))
    );
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => sameValue(a[key] ?? null, b[key] ?? null));
  }
  return a === b;
}

/** A number attribute: Terraform may send an integer, a float or, for huge numbers, a decimal string. */
export function asNumber(value: TfValue): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}
