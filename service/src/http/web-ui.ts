// Serves the web UI (built from src/ui into dist/ui by `npm run build`) at `/`, under a strict CSP, and the API
// reference (Redoc rendering GET /api/openapi.json) at /api/reference, under a policy of its own.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { sendError } from './error-envelope';

/**
 * Everything the UI loads comes from this service: no inline script or style, no other origin, no
 * framing (clickjacking), no plugins. The API token lives in sessionStorage, so script injection is the
 * threat that matters; the UI builds its DOM with textContent only, and this policy is the second wall.
 */
export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** Where a person reads the API: the OpenAPI document rendered by Redoc (build-api-reference.js). */
export const API_REFERENCE_PATH = '/api/reference';

/**
 * The API reference page's policy: the UI's, with what Redoc needs and the UI does not. Redoc styles itself with
 * styled-components, which writes <style> elements at run time that a nonce cannot reach inside its prebuilt
 * bundle ('unsafe-inline' styles); its search index runs in a worker it makes from a blob (worker-src blob:); its
 * icons are data: images. Scripts stay this service's own files only, and every fetch, image and font stays on
 * this origin, so an injected style can change how the page looks but send nothing anywhere. The page holds no
 * token: it reads only the public OpenAPI document.
 */
export const API_REFERENCE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  ...UI_SECURITY_HEADERS,
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    'worker-src blob:',
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
};

const API_REFERENCE_FILE = 'api-reference.html';

export async function webUiRoutes(app: FastifyInstance, { directory }: { directory: string }): Promise<void> {
  if (!existsSync(join(directory, 'index.html'))) {
    // Running from source without a build: say what to do instead of a bare 404.
    for (const path of ['/', API_REFERENCE_PATH]) {
      app.get(path, { schema: { hide: true } }, (_request, reply) =>
        sendError(reply, {
          status: 503,
          code: 'ui_not_built',
          message: 'The web UI is not built: run `npm run build`.',
        }),
      );
    }
    return;
  }
  // This plugin is encapsulated: the hook covers the pages and the assets, not the API.
  app.addHook('onSend', async (request, reply) => {
    reply.headers(
      request.routeOptions.url === API_REFERENCE_PATH ? API_REFERENCE_SECURITY_HEADERS : UI_SECURITY_HEADERS,
    );
    // Asset names do not change between builds, so browsers revalidate (ETag) rather than cache blindly.
    reply.header('cache-control', 'no-cache');
  });
  await app.register(fastifyStatic, {
    root: directory,
    prefix: '/ui/',
    // The file list is read once at start: no file-system lookups (or traversal) from request paths.
    wildcard: false,
    index: false,
    cacheControl: false,
    // The reference page only under its own policy, never as a UI file under the UI's (where Redoc breaks).
    allowedPath: (pathName) => pathName !== `/${API_REFERENCE_FILE}`,
  });
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.sendFile('index.html'));
  app.get(API_REFERENCE_PATH, { schema: { hide: true } }, (_request, reply) => reply.sendFile(API_REFERENCE_FILE));
}
