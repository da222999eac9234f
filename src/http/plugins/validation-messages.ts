// Turns Ajv errors into short messages a client can act on: "query.limit: must be <= 100",
// "query: unknown parameter 'foo'", "body: missing required field 'side'".
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

const CONTEXT_NAMES: ReadonlyMap<string, string> = new Map([
  ['querystring', 'query'],
  ['body', 'body'],
  ['params', 'path'],
  ['headers', 'header'],
]);

export function formatValidationErrors(
  errors: readonly FastifySchemaValidationError[],
  context: string | undefined,
): string[] {
  const where = CONTEXT_NAMES.get(context ?? '') ?? context ?? 'request';
  const out = new Set<string>();
  for (const e of errors) {
    const path = e.instancePath ? `${where}.${e.instancePath.slice(1).replaceAll('/', '.')}` : where;
    const params = e.params as Record<string, unknown>;
    const noun = where === 'query' ? 'parameter' : 'field';
    switch (e.keyword) {
      case 'additionalProperties':
        out.add(`${path}: unknown ${noun} '${String(params.additionalProperty)}'`);
        break;
      case 'required':
        out.add(`${path}: missing required ${noun} '${String(params.missingProperty)}'`);
        break;
      case 'enum':
        out.add(`${path}: must be one of ${(params.allowedValues as unknown[]).join(', ')}`);
        break;
      case 'anyOf':
      case 'oneOf':
        // The branch errors that precede this one already say what was wrong; keep the summary only when alone.
        if (errors.length === 1) out.add(`${path}: ${e.message ?? 'is invalid'}`);
        break;
      default:
        out.add(`${path}: ${e.message ?? 'is invalid'}`);
    }
  }
  return [...out];
}
