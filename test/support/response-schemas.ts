// The response-schema hook: every answer an integration test receives from our API is checked against the
// schema its route publishes in /openapi.json, so a body that drifts from its documented shape (including the
// byte-concatenated /markets and /events pages, which no serializer checks) fails whichever test saw it.
import assert from 'node:assert/strict';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

interface OpenApiDoc {
  paths: Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;
  components?: { schemas?: Record<string, unknown> };
}

interface OpenApiResponse {
  content?: Record<string, { schema?: unknown }>;
}

interface Operation {
  pattern: RegExp;
  template: string;
  method: string;
  statuses: Set<string>;
}

interface Checker {
  operations: Operation[];
  validator(template: string, method: string, status: string): ValidateFunction | null;
  errorBody: ValidateFunction;
}

/** Routes outside the API whose bodies are not JSON documents of their own (the spec, the UI, metrics). */
const UNCHECKED = [/^\/openapi\.json$/, /^\/docs(\/|$)/, /^\/metrics$/];

/**
 * Statuses that can reach any path before or around routing, always in the error shape: the URL or headers the
 * HTTP parser refused, and the shutdown gate's 503.
 */
const ANY_ROUTE_STATUSES = new Set(['400', '413', '414', '415', '431', '503']);

const checkers = new Map<string, Promise<Checker>>();

/**
 * Asserts that a response of the server at `baseUrl` matches its route's published schema for that status. A
 * path no route documents may answer only 404 (no route) or 501 (a capability route this build does not serve),
 * in the error shape; a status the route does not document fails, so a 500 fails whichever test met it.
 */
export async function assertDocumentedResponse(
  baseUrl: string,
  method: string,
  /** The path as the server saw it (`new URL(response.url).pathname`: fetch resolves `..` and the like). */
  pathAndQuery: string,
  status: number,
  body: unknown,
  text: string,
): Promise<void> {
  const path = pathAndQuery.split('?')[0] ?? pathAndQuery;
  if (UNCHECKED.some((p) => p.test(path)) || method === 'HEAD' || method === 'OPTIONS') return;
  let checker = checkers.get(baseUrl);
  if (!checker) {
    checker = loadChecker(baseUrl);
    checkers.set(baseUrl, checker);
    checker.catch(() => checkers.delete(baseUrl));
  }
  const { operations, validator, errorBody } = await checker;
  const code = String(status);
  const where = `${method} ${path} → ${status}`;
  const operation = operations.find((o) => o.method === method.toLowerCase() && o.pattern.test(path));
  if (!operation) {
    assert.ok(
      status === 404 || status === 501 || ANY_ROUTE_STATUSES.has(code),
      `${where}: no route of /openapi.json documents this path`,
    );
    assertValid(errorBody, body, `${where} (error shape)`, text);
    return;
  }
  if (!operation.statuses.has(code)) {
    assert.ok(
      ANY_ROUTE_STATUSES.has(code),
      `${where}: status ${status} is not documented for ${operation.template} in /openapi.json`,
    );
    assertValid(errorBody, body, `${where} (error shape)`, text);
    return;
  }
  const validate = validator(operation.template, operation.method, code);
  if (validate) assertValid(validate, body, where, text);
}

function assertValid(validate: ValidateFunction, body: unknown, where: string, text: string): void {
  if (validate(body)) return;
  const errors = (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  assert.fail(
    `${where}: the body does not match its published schema:\n${errors.join('\n')}\n${text.slice(0, 500)}`,
  );
}

async function loadChecker(baseUrl: string): Promise<Checker> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  assert.equal(res.status, 200, 'GET /openapi.json');
  const doc = (await res.json()) as OpenApiDoc;
  // The route schemas are TypeBox's (JSON Schema draft-07, e.g. tuples as `items: [...]`), as Fastify's own Ajv
  // validates them; the OpenAPI document carries them verbatim.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'openapi');
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    const pattern = new RegExp(
      `^${template
        .split('/')
        // Fastify's router also matches an empty parameter (`/keys/`); its params schema then refuses it.
        .map((part) => (/^\{.+\}$/.test(part) ? '[^/]*' : escapeRegExp(part)))
        .join('/')}$`,
    );
    for (const [method, op] of Object.entries(methods)) {
      operations.push({ pattern, template, method, statuses: new Set(Object.keys(op.responses ?? {})) });
    }
  }
  const compiled = new Map<string, ValidateFunction | null>();
  const pointer = (...parts: string[]) =>
    `openapi#/${parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
  const errorBodyRef = Object.keys(doc.components?.schemas ?? {}).find(
    (k) => k === 'ErrorBody' || k === 'def-0',
  );
  assert.ok(errorBodyRef, '/openapi.json publishes the error body as a component');
  const errorBody = ajv.getSchema(pointer('components', 'schemas', errorBodyRef));
  assert.ok(errorBody, 'the error body schema compiles');
  return {
    operations,
    errorBody,
    validator(template, method, status) {
      const key = `${method} ${template} ${status}`;
      if (!compiled.has(key)) {
        const response = doc.paths[template]?.[method]?.responses?.[status];
        const schema = response?.content?.['application/json']?.schema;
        compiled.set(
          key,
          schema === undefined
            ? null
            : (ajv.getSchema(
                pointer(
                  'paths',
                  template,
                  method,
                  'responses',
                  status,
                  'content',
                  'application/json',
                  'schema',
                ),
              ) ?? null),
        );
      }
      return compiled.get(key) ?? null;
    },
  };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
