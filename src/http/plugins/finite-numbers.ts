// Ajv's type coercion turns a query value such as `1e309` into Infinity, and Infinity passes `type: integer` and
// `maximum` alike (seen with limit=1e309 reaching PostgreSQL as a bigint); JSON.parse makes the same Infinity of
// a body's 1e309. No route accepts a non-finite number, so one check after validation refuses them all with the
// validation error a schema failure would give, before any handler or store sees them.
import type { FastifyInstance } from 'fastify';
import { validationError } from '../../errors/app-error.js';

export function installFiniteNumberGuard(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    const where =
      nonFinite(request.query, 'query') ??
      nonFinite(request.params, 'path') ??
      nonFinite(request.body, 'body');
    if (where) throw validationError([`${where}: must be a finite number`]);
  });
}

/** Path of the first non-finite number inside a parsed value, or null. */
function nonFinite(value: unknown, path: string): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonFinite(value[i], `${path}.${i}`);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const found = nonFinite(item, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}
