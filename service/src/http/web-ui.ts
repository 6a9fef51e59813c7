// Serves the web UI (built from src/ui into dist/ui by `npm run build`) at `/`, under a strict CSP.
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

export async function webUiRoutes(app: FastifyInstance, { directory }: { directory: string }): Promise<void> {
  if (!existsSync(join(directory, 'index.html'))) {
    // Running from source without a build: say what to do instead of a bare 404.
    app.get('/', (_request, reply) =>
      sendError(reply, { status: 503, code: 'ui_not_built', message: 'The web UI is not built: run `npm run build`.' }),
    );
    return;
  }
  // This plugin is encapsulated: the hook covers the page and the assets, not the API.
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(UI_SECURITY_HEADERS);
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
  });
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.sendFile('index.html'));
}
