// Refuses a lone UTF-16 surrogate anywhere in a request's query, path parameters or body (names included) with a
// 400, before validation and before any handler, venue or store sees it (domain/well-formed-text.ts says why).
// Header values need no check: Node decodes them as Latin-1, which yields no surrogates; the one header that
// carries JSON, X-Exchange-Credentials, is checked where it is decoded (vault/per-request-credentials.ts).
import type { FastifyInstance } from 'fastify';
import { holdsMalformedText, malformedTextMessage } from '../../domain/well-formed-text.js';
import { validationError } from '../../errors/app-error.js';

export function installWellFormedTextGuard(app: FastifyInstance): void {
  // Callback style: this hook runs on every request and must cost no promise.
  app.addHook('preValidation', (request, _reply, done) => {
    const where = holdsMalformedText(request.query)
      ? 'query'
      : holdsMalformedText(request.params)
        ? 'path'
        : holdsMalformedText(request.body)
          ? 'body'
          : null;
    if (where) return done(validationError([malformedTextMessage(where)]));
    done();
  });
}
