// The web console (web/, built into web/dist by `npm ci`) served at /console/ from local files: no CDN, works with
// no network. It is a static client of the public API (it signs in with an API key like any client), so it adds no
// route to /openapi.json. index.html is revalidated on every load; the hashed assets it names never change, so
// browsers keep them for a year. The CSP allows only this origin: scripts, styles, the API and its WebSocket.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const CONSOLE_PREFIX = '/console/';
export const CONSOLE_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export async function installConsole(app: FastifyInstance, dist = CONSOLE_DIST): Promise<void> {
  if (!existsSync(`${dist}/index.html`)) {
    // A checkout whose install did not build it: say how to, instead of a bare 404.
    const notBuilt = async (_req: FastifyRequest, reply: FastifyReply) =>
      reply.code(503).send({
        error: 'the web console is not built: run `npm ci` (or `npm run build:console`) and restart',
        code: 'console_not_built',
        retryable: false,
      });
    app.get('/console', { schema: { hide: true } }, notBuilt);
    app.get('/console/*', { schema: { hide: true } }, notBuilt);
    return;
  }
  await app.register(fastifyStatic, {
    root: dist,
    prefix: CONSOLE_PREFIX,
    index: ['index.html'],
    decorateReply: false,
    cacheControl: false,
    etag: true,
    lastModified: true,
    allowedPath: (pathName) => !pathName.endsWith('build-report.json'),
    setHeaders(res, path) {
      res.setHeader(
        'cache-control',
        path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
      res.setHeader('content-security-policy', CONSOLE_CSP);
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'no-referrer');
      res.setHeader('cross-origin-opener-policy', 'same-origin');
    },
  });
  // /console → /console/, so the page's relative asset paths resolve under it.
  app.get('/console', { schema: { hide: true } }, async (_req, reply) => reply.redirect(CONSOLE_PREFIX, 301));
}
