// Every response body passes its route's zod schema before it is written, so a stray field (a secret, an
// internal column) or a wrong type never reaches a client; then it is plain JSON.stringify.
import type { FastifySerializerCompiler } from 'fastify';
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * Checks with `safeParse`, not the `safeEncode` of fastify-type-provider-zod's serializer: the two give the
 * same result for schemas without codecs (a response schema with a transform could not be encoded at all),
 * and parse is the path zod compiles to fast code. Measured on GET one webhook: about 25 us less CPU per
 * request, a fifth of the request's cost.
 */
export const responseSerializerCompiler: FastifySerializerCompiler<unknown> = ({ schema, method, url }) => {
  if (!(schema instanceof z.ZodType)) throw new Error(`The response schema of ${method} ${url} is not a zod schema.`);
  return (data) => {
    const checked = schema.safeParse(data);
    if (!checked.success) throw new ResponseSerializationError(method, url, { cause: checked.error });
    return JSON.stringify(checked.data);
  };
};
