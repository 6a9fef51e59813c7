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
      const found = unstorableAt(parsed);
      if (found !== null) {
        return done(new ValidationError({ [found.path.join('.') || 'body']: [PROBLEMS[found.kind]] }), undefined);
      }
      return done(null, parsed);
    });
  });
}

/**
 * Characters a JSON \\u escape can carry that no stored text can: an unpaired UTF-16 surrogate has no UTF-8 form
 * (it would be stored as U+FFFD), and PostgreSQL's text refuses U+0000 (SQLite would keep it: the backends would
 * differ). Either is refused, whatever the field.
 */
const UNSTORABLE = {
  surrogate: /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
  nul: /\u0000/,
};
type Unstorable = keyof typeof UNSTORABLE;

const PROBLEMS: Record<Unstorable, string> = {
  surrogate: 'must not contain a lone surrogate (\\ud800 to \\udfff without its pair): it is not text',
  nul: 'must not contain U+0000 (NUL): no stored text can hold it',
};

function kindOf(text: string): Unstorable | null {
  if (UNSTORABLE.surrogate.test(text)) return 'surrogate';
  return UNSTORABLE.nul.test(text) ? 'nul' : null;
}

/** The path of the first string (or key) no stored text can hold, and why; null when there is none. */
function unstorableAt(value: unknown): { path: Array<string | number>; kind: Unstorable } | null {
  if (typeof value === 'string') {
    const kind = kindOf(value);
    return kind === null ? null : { path: [], kind };
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const keyKind = typeof key === 'string' ? kindOf(key) : null;
    if (keyKind !== null) return { path: [key], kind: keyKind };
    const found = unstorableAt(item);
    if (found !== null) return { path: [key, ...found.path], kind: found.kind };
  }
  return null;
}
