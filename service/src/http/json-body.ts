// JSON body parsing that tolerates an empty body: real clients send Content-Type: application/json on GET and DELETE.
import type { FastifyInstance } from 'fastify';

export function registerJsonBodyParser(app: FastifyInstance, bodyLimit: number): void {
  // Fastify's own parser, which already refuses __proto__ and constructor poisoning.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // The API speaks JSON only: any other body type is a 415, not a string handed to validation.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
