// JSON body parsing that tolerates an empty body: real clients send Content-Type: application/json on GET and DELETE.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '../core/errors';

export function registerJsonBodyParser(app: FastifyInstance, bodyLimit: number): void {
  // Fastify's own parser, which already refuses __proto__ and constructor poisoning. Its type is the union of a
  // parser's two forms; the default one is the callback form.
  const parseJson = app.getDefaultJsonParser('error', 'error') as (
    request: FastifyRequest,
    body: string,
    done: (error: Error | null, parsed?: unknown) => void,
  ) => void;
  app.removeContentTypeParser('application/json');
  // The API speaks JSON only: any other body type is a 415, not a string handed to validation.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (error, parsed) => {
      if (error) return done(error, undefined);
      const where = loneSurrogateAt(parsed);
      if (where !== null) {
        return done(
          new ValidationError({
            [where.join('.') || 'body']: [
              'must not contain a lone surrogate (\\ud800 to \\udfff without its pair): it is not text',
            ],
          }),
          undefined,
        );
      }
      return done(null, parsed);
    });
  });
}

/** An unpaired UTF-16 surrogate, which a JSON \u escape can carry and no UTF-8 text can: it would be stored as U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first string (or key) with a lone surrogate, or null; built only once one is found. */
function loneSurrogateAt(value: unknown): Array<string | number> | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? [] : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (typeof key === 'string' && LONE_SURROGATE.test(key)) return [key];
    const found = loneSurrogateAt(item);
    if (found !== null) return [key, ...found];
  }
  return null;
}
