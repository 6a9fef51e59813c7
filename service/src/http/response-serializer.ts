// Every response body passes its route's zod schema before it is written, so a stray field (a secret, an
// internal column) or a wrong type never reaches a client; then it is plain JSON.stringify.
import type { FastifySerializerCompiler } from 'fastify';
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isFrozenBody } from './frozen-body';

/**
 * Checks with `safeParse`, not the `safeEncode` of fastify-type-provider-zod's serializer: the two give the
 * same result for schemas without codecs (a response schema with a transform could not be encoded at all),
 * and parse is the path zod compiles to fast code, noticeably cheaper per GET
 * (docs/performance.md#measurements-behind-choices-in-the-code).
 *
 * A frozen body (frozen-body.ts) cannot change, so its checked JSON is kept with it, per route and status: GET
 * of an unchanged webhook is checked and stringified once, not on every request. After the bench's delivery
 * runs the check had become the costliest part of a GET (V8 had seen webhooks of several shapes by then, and
 * the compiled check had slowed); docs/performance.md#measurements-behind-choices-in-the-code gives the before and
 * after.
 */
export const responseSerializerCompiler: FastifySerializerCompiler<unknown> = ({ schema, method, url }) => {
  if (!(schema instanceof z.ZodType)) throw new Error(`The response schema of ${method} ${url} is not a zod schema.`);
  const kept = new WeakMap<object, string>();
  return (data) => {
    const frozen = isFrozenBody(data);
    if (frozen) {
      const json = kept.get(data);
      if (json !== undefined) return json;
    }
    const checked = schema.safeParse(data);
    if (!checked.success) throw new ResponseSerializationError(method, url, { cause: checked.error });
    const json = JSON.stringify(checked.data);
    if (frozen) kept.set(data, json);
    return json;
  };
};
