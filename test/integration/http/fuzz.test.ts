// Property-based fuzzing of the HTTP edge, over real HTTP to the real server on both storage backends.
// Every route comes from the server's own OpenAPI document (so a new route is fuzzed without touching this file),
// plus unknown paths and the undocumented system routes. Whatever a client sends, the server must never answer
// 5xx (503 service_unavailable, retryable, excepted) and every error must be the JSON {error, code, retryable}.
//
// Reproduce a failure with the seed and path fast-check prints:  FUZZ_SEED=<seed> FUZZ_PATH=<path> node
// scripts/run-tests.mjs fuzz.  Fuzz longer with FUZZ_SCALE=<factor> (default 1, sized for well under 60 s on 2 cores).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { instantVenue } from '../../support/loopback-venue.js';
import { assertProperty } from '../../support/property.js';
import { assertDocumentedResponse } from '../../support/response-schemas.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import {
  connectRedis,
  createPgSchema,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  uniqueName,
} from '../../support/services.js';

const SCALE = Number(process.env.FUZZ_SCALE ?? '1');
const REQUEST_RUNS = Math.max(1, Math.round(3000 * SCALE));
const KEY_LIMIT_RUNS = Math.max(1, Math.round(150 * SCALE));
const REPLAY = process.env.FUZZ_SEED
  ? { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) }
  : {};
const BODY_LIMIT = 16_384;

// ---------------------------------------------------------------------------------------------------------------
// Known bugs in src/, reported and not yet fixed. A violation that matches one of them is collected and shown by a
// `todo` test (so the run stays green but the bug stays visible) instead of failing the property; anything else
// fails at once with its counterexample. Delete an entry once its fix lands: the fuzz then guards the regression.
// ---------------------------------------------------------------------------------------------------------------

interface Observation {
  backend: Backend['name'];
  request: RequestSpec;
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
  /** Set by the key-limits property: the limits of the key that made the request. */
  keyLimits?: KeyLimits;
}

interface KnownBug {
  id: string;
  summary: string;
  matches(o: Observation): boolean;
}

const bodyOf = (o: Observation): Record<string, unknown> =>
  typeof o.body === 'object' && o.body !== null ? (o.body as Record<string, unknown>) : {};

// Empty: every bug the fuzz has found so far is fixed. Add an entry only with an issue to fix it.
const KNOWN_BUGS: KnownBug[] = [];

const knownHits = new Map<string, string[]>();

// ---------------------------------------------------------------------------------------------------------------
// The oracle.
// ---------------------------------------------------------------------------------------------------------------

function problemsWith(o: Observation): string[] {
  const problems: string[] = [];
  const body = bodyOf(o);
  const isObject = typeof o.body === 'object' && o.body !== null && !Array.isArray(o.body);
  // 503 (an exchange is down) and 501 (the exchange lacks the capability) are answers; any other 5xx is a bug.
  if (
    o.status >= 500 &&
    !(o.status === 503 && body.code === 'service_unavailable' && body.retryable === true) &&
    !(o.status === 501 && body.code === 'not_supported' && body.retryable === false)
  ) {
    problems.push(`server error ${o.status}`);
  }
  // 3xx (the docs UI redirects) carry no error; HEAD answers carry no body at all.
  if (o.status >= 400 && o.request.method !== 'HEAD') {
    if (!isObject) problems.push('error body is not a JSON object');
    else {
      if (typeof body.error !== 'string') problems.push('error body has no string `error`');
      if (typeof body.code !== 'string') problems.push('error body has no string `code`');
      if (typeof body.retryable !== 'boolean') problems.push('error body has no boolean `retryable`');
    }
  }
  if (o.status === 429 && !/^[1-9]\d*$/.test(o.headers.get('retry-after') ?? '')) {
    problems.push(`429 without a positive integer Retry-After (${o.headers.get('retry-after')})`);
  }
  const type = o.headers.get('content-type') ?? '';
  if (
    o.status < 300 &&
    o.request.method !== 'HEAD' &&
    type.includes('json') &&
    o.body === undefined &&
    o.text !== ''
  ) {
    problems.push('2xx with a JSON content type whose body does not parse');
  }
  return problems;
}

/**
 * True when the exchange is fine; false when it shows a known bug (recorded); otherwise throws an error that
 * describes the exact request and response. `extra` adds the expectations of a particular property.
 */
function judge(o: Observation, keys: KeyNames, extra: string[] = []): boolean {
  const problems = [...problemsWith(o), ...extra];
  if (problems.length === 0) return true;
  const known = KNOWN_BUGS.find((bug) => bug.matches(o));
  if (known) {
    // Keep the five shortest examples seen: the most readable reproductions.
    const hits = knownHits.get(known.id) ?? [];
    hits.push(`[${o.backend}] ${describeRequest(o.request, keys)} → ${o.status} ${clip(o.text, 300)}`);
    hits.sort((x, y) => x.length - y.length);
    knownHits.set(known.id, hits.slice(0, 5));
    return false;
  }
  const limits = o.keyLimits ? `\n  key made with: ${JSON.stringify(o.keyLimits)}` : '';
  throw new Error(
    `${problems.join('; ')}\n  backend:  ${o.backend}${limits}\n  request:  ${describeRequest(o.request, keys)}\n` +
      `  response: ${o.status} ${o.headers.get('content-type') ?? ''}\n  ${clip(o.text, 2000)}`,
  );
}

const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

// ---------------------------------------------------------------------------------------------------------------
// Requests: a plain, printable description of what is sent, so the counterexample is the request itself.
// ---------------------------------------------------------------------------------------------------------------

type KeyChoice = { kind: 'scale' } | { kind: 'admin' } | { kind: 'none' } | { kind: 'raw'; value: string };

interface RequestSpec {
  method: string;
  /** Already in wire form (percent-encoding included), always starting with '/'. */
  path: string;
  /** Wire form without the '?'; '' sends no '?'. */
  query: string;
  key: KeyChoice;
  headers: Record<string, string>;
  body: { contentType: string | null; text: string } | null;
}

interface KeyNames {
  scale: string;
  admin: string;
}

function describeRequest(r: RequestSpec, keys: KeyNames): string {
  const key =
    r.key.kind === 'raw'
      ? `x-api-key: ${JSON.stringify(clip(r.key.value, 200))}`
      : r.key.kind === 'none'
        ? 'no x-api-key'
        : `x-api-key: <${r.key.kind} fuzz key ${r.key.kind === 'scale' ? keys.scale : keys.admin}>`;
  const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${JSON.stringify(clip(v, 300))}`);
  const body = r.body
    ? ` content-type: ${JSON.stringify(r.body.contentType)} body: ${JSON.stringify(clip(r.body.text, 600))}`
    : '';
  return `${r.method} ${clip(r.path + (r.query ? `?${r.query}` : ''), 600)} [${[key, ...headers].join(', ')}]${body}`;
}

async function send(baseUrl: string, r: RequestSpec, keys: { scale: string; admin: string }) {
  const headers: Record<string, string> = { ...r.headers };
  if (r.key.kind === 'scale') headers['x-api-key'] = keys.scale;
  else if (r.key.kind === 'admin') headers['x-api-key'] = keys.admin;
  else if (r.key.kind === 'raw') headers['x-api-key'] = r.key.value;
  if (r.body?.contentType != null) headers['content-type'] = r.body.contentType;
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${r.path}${r.query ? `?${r.query}` : ''}`, {
      method: r.method,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
      ...(r.body ? { body: r.body.text } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: Error }).cause;
    throw new Error(
      `request failed (connection dropped, hang or crash?): ${(error as Error).message} ${cause?.message ?? ''}`,
    );
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  await assertDocumentedResponse(baseUrl, r.method, new URL(res.url).pathname, res.status, body, text);
  return { status: res.status, headers: res.headers, text, body };
}

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries.
// ---------------------------------------------------------------------------------------------------------------

/** Percent-encodes everything but unreserved characters, byte by byte (lone surrogates become U+FFFD). */
function pctEncode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Characters a header value can carry on the wire: visible ASCII, space and Latin-1 (no controls). */
const headerChar = fc
  .integer({ min: 0x20, max: 0xff })
  .filter((c) => c !== 0x7f && (c < 0x80 || c >= 0xa0))
  .map((c) => String.fromCharCode(c));
const headerValue = (maxLength = 64) => fc.string({ unit: headerChar, maxLength });

const unicodeText = (maxLength = 24) =>
  fc.oneof(fc.string({ unit: 'grapheme', maxLength }), fc.string({ unit: 'binary', maxLength }));

const PERCENT_JUNK = [
  '%',
  '%2',
  '%zz',
  '%00',
  '%FF',
  '%C3%A9',
  '%E0%A4%A',
  '%ED%A0%80',
  '%2F',
  '%2e%2e',
  '%25',
  '%20',
  '%0A',
  '%0D%0A',
  '..',
  '.',
  '~',
  '!',
  '$',
  "'",
  '(',
  ')',
  '*',
  '+',
  ',',
  ';',
  '=',
  ':',
  '@',
  'a',
  'Z',
  '0',
  '-',
  '_',
  'key_',
] as const;
const percentJunk = fc
  .array(fc.constantFrom(...PERCENT_JUNK), { minLength: 1, maxLength: 10 })
  .map((a) => a.join(''));

/** A path segment in wire form. */
const segment = fc.oneof(
  { weight: 4, arbitrary: unicodeText().map(pctEncode) },
  { weight: 3, arbitrary: percentJunk },
  {
    weight: 1,
    arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'null', '0', '-1', 'key_'),
  },
  { weight: 1, arbitrary: fc.integer({ min: 90, max: 400 }).map((n) => 'k'.repeat(n)) },
);

const QUERY_NAMES_ALWAYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__proto__[polluted]',
  'constructor[prototype][polluted]',
  'exchange[]',
  'a.b',
  '',
  '%',
  '%zz',
  '%00',
  'limit',
  'cursor',
] as const;

const queryValue = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'kalshi',
      'polymarket',
      'limitless',
      'opinion',
      'predictfun',
      'binance',
      'KALSHI',
      ' kalshi',
      'true',
      'null',
      '0',
      '-1',
      '1e309',
      'NaN',
      '[]',
      '{}',
      '__proto__',
      'constructor',
    ),
  },
  { weight: 3, arbitrary: unicodeText(40) },
  { weight: 2, arbitrary: percentJunk },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 5000 }).map((n) => 'v'.repeat(n)) },
);

function queryString(knownNames: readonly string[]) {
  const name = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...knownNames, ...QUERY_NAMES_ALWAYS) },
    { weight: 1, arbitrary: unicodeText(12) },
  );
  const pair = fc
    .tuple(name, queryValue, fc.constantFrom('encoded', 'raw', 'bare'))
    .map(([k, v, form]) =>
      form === 'encoded'
        ? `${pctEncode(k)}=${pctEncode(v)}`
        : form === 'bare'
          ? pctEncode(k)
          : `${k}=${v}`.replaceAll('#', '%23'),
    );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.join('&'));
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

const credentialish = fc.oneof(unicodeText(40), fc.jsonValue({ maxDepth: 2 }));
const credentialsHeader = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record(
        {
          api_key_id: credentialish,
          private_key: credentialish,
          clob_api_key: credentialish,
          clob_api_secret: credentialish,
          clob_api_passphrase: credentialish,
          extra: credentialish,
        },
        { requiredKeys: [] },
      )
      .map(b64),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(b64) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('base64')) },
  { weight: 2, arbitrary: headerValue(120) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '=',
      '====',
      '%%%not-base64',
      'bnVsbA==',
      'W10=',
      'e30=',
      'IiI=',
      'eyJfX3Byb3RvX18iOnt9fQ==',
    ),
  },
  // Around the server's own 16 KiB bound on this header, which Node's 16 KiB bound on all headers meets first.
  { weight: 1, arbitrary: fc.integer({ min: 12_000, max: 16_500 }).map((n) => 'A'.repeat(n)) },
);

const FORBIDDEN_HEADER_NAMES = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'x-api-key',
  'content-type',
  'x-exchange-credentials',
  'proxy-connection',
]);

const extraHeaders = fc
  .record(
    {
      'x-exchange-credentials': credentialsHeader,
      'x-request-id': fc.oneof(
        { weight: 4, arbitrary: headerValue(80) },
        { weight: 1, arbitrary: fc.integer({ min: 1000, max: 8000 }).map((n) => 'r'.repeat(n)) },
      ),
      accept: fc.oneof(
        fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
        headerValue(40),
      ),
      'accept-version': fc.oneof(fc.constantFrom('1.0.0', '*', 'x'), headerValue(20)),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity', 'compress;q=0', 'x'),
      'x-forwarded-for': fc.oneof(fc.constantFrom('1.2.3.4', '::1', 'unknown'), headerValue(40)),
      random: fc.dictionary(
        fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((n) => !FORBIDDEN_HEADER_NAMES.has(n)),
        headerValue(60),
        { maxKeys: 3 },
      ),
    },
    { requiredKeys: [] },
  )
  .map(({ random, ...named }) => ({ ...random, ...named }) as Record<string, string>);

const keyChoice: fc.Arbitrary<KeyChoice> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<KeyChoice>({ kind: 'scale' }) },
  { weight: 4, arbitrary: fc.constant<KeyChoice>({ kind: 'admin' }) },
  { weight: 1, arbitrary: fc.constant<KeyChoice>({ kind: 'none' }) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        headerValue(80),
        fc.integer({ min: 500, max: 600 }).map((n) => 'x'.repeat(n)),
      )
      .map((value): KeyChoice => ({ kind: 'raw', value })),
  },
);

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json;',
  'application/json ; charset=UTF-8',
  'application/vnd.api+json',
  'application/json, text/plain',
  'application/json; boundary=x',
] as const;
const OTHER_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=xyz',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  '',
  'json',
  '*/*',
  'text/plain; charset=utf-16',
] as const;

const RAW_JSONISH = [
  '',
  ' ',
  '{',
  '}',
  '[',
  '{"tier":',
  '{"tier": "free",',
  'null',
  'true',
  '0',
  '-0',
  '"x"',
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '\uFEFF{"tier":"free"}',
  '{"tier":"free"}garbage',
  '{"tier":"free"}{"tier":"pro"}',
  "{'tier':'free'}",
  '{"tier":"free","tier":"admin"}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '[1,]',
  '{"a":1,}',
  '{"name":"\\ud800"}',
  '{"name":"\\u0000"}',
  '\u0000',
  '{"tier":"free"',
] as const;

/** JSON text for a value following (or deliberately breaking) a property schema from the OpenAPI document. */
function valueText(schema: Record<string, unknown>): fc.Arbitrary<string> {
  const fitting: Array<fc.Arbitrary<unknown>> = [];
  if (Array.isArray(schema.enum)) fitting.push(fc.constantFrom(...(schema.enum as unknown[])));
  if (schema.type === 'number' || schema.type === 'integer') {
    const min =
      typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.exclusiveMinimum === 'number'
          ? schema.exclusiveMinimum
          : -1e6;
    const max = typeof schema.maximum === 'number' ? schema.maximum : 1e9;
    fitting.push(fc.double({ min, max, noNaN: true }), fc.constantFrom(min, max, min + 1, 1, 0.5));
  }
  if (schema.type === 'string') {
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : 50;
    fitting.push(
      unicodeText(Math.min(max + 2, 64)),
      fc.constantFrom('', 'x'.repeat(max), 'x'.repeat(max + 1)),
    );
  }
  if (schema.type === 'boolean') fitting.push(fc.boolean());
  const wrong = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(0, -0, 5e-324, 1e-300, 1e308, -1, 2 ** 53, 'free', 'admin', true, null, [], {}),
  );
  const value =
    fitting.length > 0
      ? fc.oneof({ weight: 3, arbitrary: fc.oneof(...fitting) }, { weight: 1, arbitrary: wrong })
      : wrong;
  return fc.oneof(
    { weight: 6, arbitrary: value.map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('1e400', '-1e400', '1e-400', '"\\u0000"', '"a\\u0000b"', '"\\ud800"'),
    },
  );
}

/** A value that satisfies a property schema (strings may still hold NUL or lone surrogates: they are valid JSON). */
function validValue(schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.type === 'number' || schema.type === 'integer') {
    const exclusive = typeof schema.exclusiveMinimum === 'number';
    const min = exclusive
      ? (schema.exclusiveMinimum as number)
      : typeof schema.minimum === 'number'
        ? schema.minimum
        : -1e6;
    const max = typeof schema.maximum === 'number' ? schema.maximum : 1e9;
    const double = fc.double({ min, max, noNaN: true, minExcluded: exclusive });
    return schema.type === 'integer' ? double.map(Math.floor).filter((n) => n >= min && n <= max) : double;
  }
  if (schema.type === 'string') {
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 50;
    return fc.oneof(
      fc.string({ unit: 'grapheme', minLength, maxLength }),
      fc
        .constantFrom('a\u0000b', '\u0000', '\ud800', 'x'.repeat(maxLength))
        .filter((v) => v.length >= minLength),
    );
  }
  if (schema.type === 'boolean') return fc.boolean();
  return fc.jsonValue({ maxDepth: 2 });
}

/** Objects that satisfy a request body schema, so requests get past validation into the handlers. */
function validBody(schema: Record<string, unknown> | undefined): fc.Arbitrary<string> {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema?.required) ? (schema.required as string[]) : [];
  return fc
    .record(Object.fromEntries(Object.entries(properties).map(([n, p]) => [n, validValue(p)])), {
      requiredKeys: required,
    })
    .map((v) => JSON.stringify(v));
}

/** Near-valid objects built from a request body schema: subsets of its fields, wrong types, extras, duplicates. */
function guidedBody(schema: Record<string, unknown> | undefined): fc.Arbitrary<string> {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const names = Object.keys(properties);
  if (names.length === 0) return fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
  const member = fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .constantFrom(...names)
        .chain((n) => valueText(properties[n] ?? {}).map((v) => [n, v] as const)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constantFrom('__proto__', 'constructor', 'key', 'id', ''), unicodeText(10)),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .map(([n, v]) => [n, JSON.stringify(v)] as const),
    },
  );
  return fc
    .array(member, { maxLength: names.length + 2 })
    .map((members) => `{${members.map(([n, v]) => `${JSON.stringify(n)}:${v}`).join(',')}}`);
}

function requestBody(schema: Record<string, unknown> | undefined) {
  const json = (text: fc.Arbitrary<string>) =>
    fc
      .tuple(
        fc.oneof(
          { weight: 4, arbitrary: fc.constant('application/json') },
          { weight: 1, arbitrary: fc.constantFrom(...JSON_TYPES) },
        ),
        text,
      )
      .map(([contentType, t]) => ({ contentType, text: t }));
  return fc.oneof(
    { weight: schema ? 2 : 8, arbitrary: fc.constant(null) },
    { weight: schema ? 4 : 0, arbitrary: json(validBody(schema)) },
    { weight: 4, arbitrary: json(guidedBody(schema)) },
    { weight: 2, arbitrary: json(fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v))) },
    { weight: 2, arbitrary: json(fc.oneof(fc.constantFrom(...RAW_JSONISH), unicodeText(60))) },
    {
      weight: 1,
      arbitrary: json(
        fc.oneof(
          fc.integer({ min: 1, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
          fc
            .integer({ min: BODY_LIMIT - 16, max: BODY_LIMIT + 64 })
            .map((n) => `{"name":"${'n'.repeat(n)}"}`),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constantFrom<string | null>(...OTHER_TYPES, null), headerValue(40)),
          fc.oneof(unicodeText(60), fc.constantFrom(...RAW_JSONISH)),
        )
        .map(([contentType, text]) => ({ contentType, text })),
    },
  );
}

const EXTRA_METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'PROPFIND',
  'SEARCH',
  'REPORT',
  'PURGE',
] as const;

interface Route {
  method: string;
  template: string;
  queryNames: string[];
  bodySchema: Record<string, unknown> | undefined;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
}

function routesOf(doc: { paths: Record<string, Record<string, OpenApiOperation>> }): Route[] {
  const routes: Route[] = [];
  for (const [template, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      if (!['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].includes(method)) continue;
      routes.push({
        method: method.toUpperCase(),
        template,
        queryNames: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        bodySchema: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return routes;
}

function requestSpecs(routes: Route[], protectedIds: ReadonlySet<string>): fc.Arbitrary<RequestSpec> {
  const allQueryNames = [...new Set(routes.flatMap((r) => r.queryNames))];
  const fillTemplate = (template: string): fc.Arbitrary<string> => {
    const parts = template.split(/(\{[^}]+\})/).filter((p) => p.length > 0);
    return fc
      .tuple(...parts.map((p) => (p.startsWith('{') ? segment : fc.constant(p))))
      .map((filled) => filled.join(''))
      .map((path) => {
        // Never revoke the keys the fuzz itself uses (random ids cannot match them, but be sure).
        const last = path.split('/').pop() ?? '';
        return protectedIds.has(decodeURIComponentSafe(last)) ? `${path}_not` : path;
      });
  };
  const known = fc.constantFrom(...routes).chain((route) =>
    fc.record({
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant(route.method) },
        { weight: 1, arbitrary: fc.constantFrom(...EXTRA_METHODS) },
      ),
      path: fc.oneof(
        { weight: 9, arbitrary: fillTemplate(route.template) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(
              fillTemplate(route.template),
              fc.constantFrom('/', '//', '/x', ';', '%2F', '.json', '/..', '%00', '/%'),
            )
            .map(([p, suffix]) => p + suffix),
        },
      ),
      // Often a clean query and no extra header, so that requests get past validation into the handlers.
      query: fc.oneof(
        { weight: 2, arbitrary: fc.constant('') },
        { weight: 3, arbitrary: queryString([...route.queryNames, ...allQueryNames]) },
      ),
      key: keyChoice,
      headers: fc.oneof(
        { weight: 1, arbitrary: fc.constant<Record<string, string>>({}) },
        { weight: 2, arbitrary: extraHeaders },
      ),
      body: requestBody(route.bodySchema),
    }),
  );
  const unknownPath = fc.oneof(
    fc.constantFrom(
      '/',
      '/healthz',
      '/metrics',
      '/openapi.json',
      '/docs',
      '/docs/',
      '/docs/json',
      '/docs/yaml',
      '/api',
      '/api/v1',
      '/api/v1/',
      '/API/V1/EXCHANGES',
    ),
    fc
      .tuple(
        fc.constantFrom('/', '/api/v1/', '/api/v2/', '/docs/', '/docs/static/', '//', '/api/v1/keys/'),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
      )
      .map(([prefix, segments]) => prefix + segments.join('/')),
  );
  const unknown = fc.record({
    method: fc.constantFrom(...EXTRA_METHODS),
    path: unknownPath,
    query: queryString(allQueryNames),
    key: keyChoice,
    headers: extraHeaders,
    body: requestBody(undefined),
  });
  return fc.oneof({ weight: 4, arbitrary: known }, { weight: 1, arbitrary: unknown }).map((spec) => ({
    ...spec,
    // fetch refuses a body on GET and HEAD.
    body: spec.method === 'GET' || spec.method === 'HEAD' ? null : spec.body,
  }));
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

interface KeyLimits {
  tier: string;
  qps_limit?: number;
  burst?: number;
}

const keyLimits: fc.Arbitrary<KeyLimits> = fc.record(
  {
    tier: fc.constantFrom('free', 'pro', 'scale', 'admin'),
    qps_limit: fc.oneof(
      // The schema's bounds are 0.001..1e9 (smaller rates would make Retry-After and bucket lifetimes unbounded).
      fc.double({ min: 0.001, max: 1e9, noNaN: true }),
      fc.double({ min: 0.01, max: 1000, noNaN: true }),
      fc.constantFrom(0.001, 0.0011, 0.1, 1, 1e9),
    ),
    burst: fc.oneof(fc.double({ min: 1, max: 1e9, noNaN: true }), fc.constantFrom(1, 1.5, 2, 1e9)),
  },
  { requiredKeys: ['tier'] },
);

// ---------------------------------------------------------------------------------------------------------------
// A stand-in venue at the adapter port, so that X-Exchange-Credentials is decoded and handed to a venue: with no
// venue enabled, every ?exchange= stops at 404 before the header is read.
// ---------------------------------------------------------------------------------------------------------------

const VENUES = [instantVenue('kalshi'), instantVenue('polymarket')];

// ---------------------------------------------------------------------------------------------------------------
// The tests, once per storage backend.
// ---------------------------------------------------------------------------------------------------------------

interface Backend {
  name: 'sqlite + memory' | 'postgres + redis';
  start(): Promise<{ server: TestServer; cleanup: () => Promise<void> }>;
}

const HTTP = { bodyLimitBytes: BODY_LIMIT, requestTimeoutMs: 15_000, trustProxy: false };

const BACKENDS: Backend[] = [
  {
    name: 'sqlite + memory',
    async start() {
      const server = await startTestServer({ venues: VENUES, config: { http: HTTP } });
      return { server, cleanup: async () => undefined };
    },
  },
  {
    name: 'postgres + redis',
    async start() {
      const { schema, drop } = await createPgSchema();
      const namespace = uniqueName('fuzz');
      const cleanup = async () => {
        await drop();
        // The buckets and month counters the fuzz left in Redis (keys expire anyway; this keeps the db tidy).
        const redis = await connectRedis();
        try {
          const stale: string[] = [];
          for await (const batch of redis.scanStream({ match: `${namespace}:*`, count: 500 }))
            stale.push(...batch);
          if (stale.length > 0) await redis.del(...stale);
        } finally {
          redis.disconnect();
        }
      };
      try {
        const server = await startTestServer({
          venues: VENUES,
          config: { http: HTTP, databaseUrl: TEST_DATABASE_URL, redisUrl: TEST_REDIS_URL },
          pgSchema: schema,
          redisNamespace: namespace,
        });
        return { server, cleanup };
      } catch (error) {
        await cleanup();
        if (/kysely_migration/.test(String((error as Error).message))) {
          // Kysely's Migrator, without migrationTableSchema, looks for its tables in every schema: another schema
          // holding them (a concurrent or killed test) makes it skip creating its own (src/store/database.ts).
          throw new Error(
            `the server could not migrate its PostgreSQL schema (${(error as Error).message}): another schema ` +
              'of the test database holds kysely_migration tables, see src/store/database.ts migrate()',
            { cause: error },
          );
        }
        throw error;
      }
    },
  },
];

for (const backend of BACKENDS) {
  describe(`HTTP fuzz (${backend.name})`, () => {
    let server: TestServer;
    let cleanup: () => Promise<void> = async () => undefined;
    const keys = { scale: '', admin: '' };
    const keyIds = { scale: '', admin: '' };
    let routes: Route[] = [];
    const protectedIds = new Set<string>();

    before(async () => {
      ({ server, cleanup } = await backend.start());
      // Keys with limits high enough that the fuzz exercises the routes rather than the rate limiter: a scale-tier
      // customer key, and an admin-tier one so that the admin routes are fuzzed past their 403.
      for (const tier of ['scale', 'admin'] as const) {
        const res = await server.request('/api/v1/keys', {
          method: 'POST',
          body: { tier, name: `fuzz ${tier}`, qps_limit: 1e7, burst: 1e7 },
        });
        assert.equal(res.status, 201, res.text);
        const created = res.body as { id: string; key: string };
        keys[tier] = created.key;
        keyIds[tier] = created.id;
        protectedIds.add(created.id);
      }
      const listed = (await server.request('/api/v1/keys')).body as Array<{ id: string; name: string }>;
      for (const k of listed) if (k.name === 'OMNIBOOK_ADMIN_KEY') protectedIds.add(k.id);
      const doc = await server.request('/openapi.json', { key: null });
      assert.equal(doc.status, 200, doc.text);
      routes = routesOf(doc.body as { paths: Record<string, Record<string, OpenApiOperation>> });
    });

    after(async () => {
      await server?.stop();
      await cleanup();
    });

    test('the OpenAPI document yields the routes to fuzz', () => {
      const seen = routes.map((r) => `${r.method} ${r.template}`);
      for (const expected of [
        'GET /api/v1/exchanges',
        'GET /api/v1/ping',
        'POST /api/v1/keys',
        'DELETE /api/v1/keys/{key_id}',
      ]) {
        assert.ok(seen.includes(expected), `${expected} not found among ${seen.join(', ')}`);
      }
    });

    test('no client input gets a 5xx or an error outside {error, code, retryable}', async (t) => {
      const names = { scale: `${keyIds.scale}`, admin: `${keyIds.admin}` };
      const statuses = new Map<string, number>();
      await assertProperty(
        fc.asyncProperty(requestSpecs(routes, protectedIds), async (request) => {
          const res = await send(server.url, request, keys);
          statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1);
          judge({ backend: backend.name, request, ...res }, names);
        }),
        {
          numRuns: REQUEST_RUNS,
          includeErrorInReport: true,
          ...REPLAY,
          // Found by the response-schema check: fetch normalises `//..`, and Fastify routes an empty parameter.
          examples: [
            [
              {
                method: 'DELETE',
                path: '/api/v1/keys//..',
                query: '',
                key: { kind: 'none' },
                headers: {},
                body: { contentType: 'application/json', text: '[]' },
              },
            ],
            [
              {
                method: 'DELETE',
                path: '/api/v1/keys/',
                query: '',
                key: { kind: 'none' },
                headers: {},
                body: null,
              },
            ],
          ],
        },
      );
      // How deep the fuzz went: mostly 400s would mean it no longer gets past validation.
      const tally = [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}×${n}`);
      t.diagnostic(`${REQUEST_RUNS} requests, statuses ${tally.join(' ')}`);
      // The fuzz keys must have survived (nothing the fuzz sent revoked them).
      assert.equal((await server.request('/api/v1/usage', { key: keys.scale })).status, 200);
      assert.equal((await server.request('/api/v1/usage', { key: keys.admin })).status, 200);
    });

    test('a key created with any limits the schema accepts stays usable: 200 or 429 with Retry-After', async () => {
      const names = { scale: keyIds.scale, admin: keyIds.admin };
      await assertProperty(
        fc.asyncProperty(keyLimits, async (limits) => {
          const create: RequestSpec = {
            method: 'POST',
            path: '/api/v1/keys',
            query: '',
            key: { kind: 'admin' },
            headers: {},
            body: { contentType: 'application/json', text: JSON.stringify(limits) },
          };
          const created = await send(server.url, create, keys);
          const refused = created.status === 201 ? [] : ['limits the schema allows were refused'];
          if (!judge({ backend: backend.name, request: create, ...created }, names, refused)) return;
          const newKey = (created.body as { key: string }).key;
          for (let i = 0; i < 3; i++) {
            const use: RequestSpec = {
              method: 'GET',
              path: '/api/v1/usage',
              query: '',
              key: { kind: 'raw', value: newKey },
              headers: {},
              body: null,
            };
            const res = await send(server.url, use, keys);
            const observation = { backend: backend.name, request: use, ...res, keyLimits: limits };
            const expected =
              i === 0
                ? res.status === 200
                : res.status === 200 ||
                  (res.status === 429 && bodyOf(observation).code === 'rate_limit_exceeded');
            const extra = expected
              ? []
              : [
                  `request ${i + 1} of a fresh key must be ${i === 0 ? 'admitted' : '200 or 429 rate_limit_exceeded'}`,
                ];
            if (!judge(observation, names, extra)) return;
          }
        }),
        { numRuns: KEY_LIMIT_RUNS, includeErrorInReport: true, ...REPLAY, examples: [] },
      );
    });
  });
}

describe('known src bugs met by the fuzz (todo until fixed)', () => {
  for (const bug of KNOWN_BUGS) {
    test(bug.id, { todo: bug.summary }, () => {
      const hits = knownHits.get(bug.id) ?? [];
      assert.deepEqual(hits, [], `${bug.summary}\nexamples:\n${hits.join('\n')}`);
    });
  }
});
