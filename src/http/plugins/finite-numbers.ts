// Ajv's type coercion turns a query value such as `1e309` into Infinity, and Infinity passes `type: integer` and
// `maximum` alike (seen with limit=1e309 reaching PostgreSQL as a bigint); JSON.parse makes the same Infinity of
// a body's 1e309. No route accepts a non-finite number, so one check after validation refuses them all with the
// validation error a schema failure would give, before any handler or store sees them.
import type { FastifyInstance } from 'fastify';
import { validationError } from '../../errors/app-error.js';

export function installFiniteNumberGuard(app: FastifyInstance): void {
  // Callback style: this hook runs on every request and must cost no promise.
  app.addHook('preHandler', (request, _reply, done) => {
    const where =
      nonFinite(request.query, 'query') ??
      nonFinite(request.params, 'path') ??
      nonFinite(request.body, 'body');
    if (where) return done(validationError([`${where}: must be a finite number`]));
    done();
  });
}

/**
 * Path of the first non-finite number inside a parsed value, or null. Iterative: a body may nest arrays thousands
 * deep (the fuzz sends such), which a recursive walk would answer with a stack overflow.
 */
function nonFinite(root: unknown, rootPath: string): string | null {
  const pending: Array<[unknown, string]> = [[root, rootPath]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${path}.${i}`]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value).reverse()) pending.push([item, `${path}.${key}`]);
    }
  }
  return null;
}
