// JSON body parsing that tolerates an empty body: real clients send Content-Type: application/json on GET and DELETE.
import type { FastifyInstance } from 'fastify';
import { MalformedRequestError, UnsupportedMediaTypeError, ValidationError } from '../core/errors';

/** JSON text is UTF-8: a body that is not is refused, rather than read with U+FFFD in place of its bad bytes. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export function registerJsonBodyParser(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser('application/json');
  // The API speaks JSON only: any other body type is a 415, not a string handed to validation.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (request, body, done) => {
    try {
      // A compressed body would otherwise be read as bytes that are not UTF-8, and refused for that.
      const encoding = request.headers['content-encoding'];
      if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
        throw new UnsupportedMediaTypeError(
          `Send the request body uncompressed: Content-Encoding ${encoding} is not supported.`,
        );
      }
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** The body's value, undefined for an empty body; throws the error the caller is answered with. */
export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new MalformedRequestError('The request body is not valid UTF-8 text.');
  }
  if (text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MalformedRequestError('The request body is not valid JSON.');
  }
  const found = unacceptableAt(parsed);
  if (found !== null) {
    throw new ValidationError({ [found.path.join('.') || 'body']: [PROBLEMS[found.kind]] });
  }
  return parsed;
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
type Unacceptable = keyof typeof UNSTORABLE | 'prototypeKey';

const PROBLEMS: Record<Unacceptable, string> = {
  surrogate: 'must not contain a lone surrogate (\\ud800 to \\udfff without its pair): it is not text',
  nul: 'must not contain U+0000 (NUL): no stored text can hold it',
  // JSON.parse makes it an ordinary key, but code that copies objects key by key could set a prototype with it.
  prototypeKey: 'is a key no request needs (__proto__, or constructor.prototype), refused for safety',
};

function kindOf(text: string): Unacceptable | null {
  if (UNSTORABLE.surrogate.test(text)) return 'surrogate';
  return UNSTORABLE.nul.test(text) ? 'nul' : null;
}

/** A value met on the walk through a body, and how it was reached. */
interface Visit {
  value: unknown;
  key: string | number | null;
  parent: Visit | null;
}

function pathOf(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Visit | null = visit; at !== null && at.key !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * The path of a string or key that cannot be accepted, and why; null when there is none. Iterative, and a path is
 * made only for the problem found, so a body nested thousands of levels deep (64 KiB allow it) costs no more to
 * read than a flat one of its size.
 */
function unacceptableAt(value: unknown): { path: Array<string | number>; kind: Unacceptable } | null {
  const pending: Visit[] = [{ value, key: null, parent: null }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const item = visit.value;
    if (typeof item === 'string') {
      const kind = kindOf(item);
      if (kind !== null) return { path: pathOf(visit), kind };
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    const entries: Iterable<[string | number, unknown]> = Array.isArray(item) ? item.entries() : Object.entries(item);
    for (const [key, child] of entries) {
      const childVisit: Visit = { value: child, key, parent: visit };
      if (typeof key === 'string') {
        const keyKind = isPrototypeKey(key, child) ? 'prototypeKey' : kindOf(key);
        if (keyKind !== null) return { path: pathOf(childVisit), kind: keyKind };
      }
      pending.push(childVisit);
    }
  }
  return null;
}

function isPrototypeKey(key: string, value: unknown): boolean {
  if (key === '__proto__') return true;
  return key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value;
}
