// The HTTP fuzz's generators: requests for every route of the server's own OpenAPI document (so a new route is
// fuzzed without touching this file) and for unknown paths, built from the document's parameters and body schemas,
// hostile text (odd unicode, NUL, lone surrogates, percent junk, huge values), numbers at the edges, and — so that
// requests get past validation into the handlers of a populated server — real values from its catalogue and the
// sandbox's paper accounts (the corpus).
import fc from 'fast-check';
import type { KeyChoice, RequestSpec } from './requests.js';

/** Real values of the server under fuzz, so requests reach past validation into its handlers. */
export interface FuzzCorpus {
  /** Real values by the name of the query parameter, path parameter, header or body field they fill. */
  byName: Readonly<Record<string, readonly string[]>>;
  /** The sandbox's paper accounts' credentials (what a client puts, base64, in X-Exchange-Credentials). */
  credentials: ReadonlyArray<Readonly<Record<string, string>>>;
  /** Stored markets, so one request can name a market, its exchange and one of its outcomes together. */
  markets: ReadonlyArray<CorpusMarket>;
  /** The paper accounts by exchange. */
  accounts: Readonly<Record<string, ReadonlyArray<Readonly<Record<string, string>>>>>;
}

export interface CorpusMarket {
  exchange: string;
  svc_id: string;
  svc_group_id: string;
  exchange_market_id: string;
  exchange_group_id: string;
  outcomes: readonly string[];
  condition_id?: string | undefined;
  tick_size: number | null;
}

/** The server's request body bound (http.bodyLimitBytes) the fuzz probes on both sides. */
export const BODY_LIMIT = 16_384;

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

/** Numbers at the edges of what parsers and columns hold, as query or path text. */
/** secp256k1's group order n: a key must lie in [1, n-1]. */
const SECP256K1_N = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
/** Private keys of the right shape outside the curve's range: once 500s on Polymarket and Predict.fun (issue 31). */
const OUT_OF_RANGE_KEYS = [
  '0'.repeat(64),
  `0x${'0'.repeat(64)}`,
  'f'.repeat(64),
  `0x${'F'.repeat(64)}`,
  SECP256K1_N,
  `0x${SECP256K1_N}`,
] as const;
/** Lone UTF-16 surrogates (a URIError 500 on a Kalshi market id, issue 31). */
const LONE_SURROGATES = ['\ud800', '\udfff', 'KX-\ud83d', 'a\udc00b'] as const;
/** Secrets pasted as field names: a 400 must not reflect them (issue 31). */
const PASTED_SECRET_NAMES = [
  `sk_live_${'9'.repeat(40)}`,
  `0x${'ab'.repeat(32)}`,
  '-----BEGIN RSA PRIVATE KEY-----',
] as const;

const EDGE_NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '0.5',
  '1.5',
  '0.0000001',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740991',
  '9007199254740993',
  '-9223372036854775809',
  '1e21',
  '1e308',
  '1e309',
  '5e-324',
  'Infinity',
  '-Infinity',
  'NaN',
  '0x10',
  '0b1',
  '1_000',
  ' 1',
  '1 ',
  '+1',
  '01',
  '.5',
  '5.',
] as const;

/** A real value of the corpus for `name` (a parameter or field name), or null when it holds none. */
function real(c: FuzzCorpus, name: string): fc.Arbitrary<string> | null {
  // Own properties only: the fuzz's names include `constructor` and `__proto__`.
  const values = Object.hasOwn(c.byName, name) ? c.byName[name] : undefined;
  return values && values.length > 0 ? fc.constantFrom(...values) : null;
}

/** A real value for `name`, altered at the edges: case, whitespace, a NUL, a suffix, truncation, doubling. */
function nearReal(c: FuzzCorpus, name: string): fc.Arbitrary<string> | null {
  const value = real(c, name);
  if (!value) return null;
  return fc
    .tuple(value, fc.constantFrom('upper', 'space', 'nul', 'suffix', 'cut', 'twice', 'colon'))
    .map(([v, how]) => {
      if (how === 'upper') return v.toUpperCase();
      if (how === 'space') return ` ${v} `;
      if (how === 'nul') return `${v}\u0000`;
      if (how === 'suffix') return `${v}x`;
      if (how === 'cut') return v.slice(0, Math.max(0, v.length - 1));
      if (how === 'twice') return `${v},${v}`;
      return `:${v}`;
    });
}

/** A path segment in wire form. */
const anySegment = fc.oneof(
  { weight: 4, arbitrary: unicodeText().map(pctEncode) },
  { weight: 3, arbitrary: percentJunk },
  {
    weight: 1,
    arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'null', '0', '-1', 'key_'),
  },
  { weight: 1, arbitrary: fc.integer({ min: 90, max: 400 }).map((n) => 'k'.repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom(...EDGE_NUMBERS).map(pctEncode) },
);

/** A path parameter in wire form: often a real id (order, end-user, key) so the handler looks it up. */
function segmentFor(c: FuzzCorpus, name: string): fc.Arbitrary<string> {
  const exact = real(c, name);
  const near = nearReal(c, name);
  return fc.oneof(
    { weight: 3, arbitrary: anySegment },
    ...(exact ? [{ weight: 3, arbitrary: exact.map(pctEncode) }] : []),
    ...(near ? [{ weight: 1, arbitrary: near.map(pctEncode) }] : []),
  );
}

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

const anyQueryValue = fc.oneof(
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
  { weight: 2, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom(...LONE_SURROGATES) },
);

/** A value for the query parameter `name`: real ones (and lists of them) weigh as much as hostile ones. */
function queryValueFor(c: FuzzCorpus, name: string): fc.Arbitrary<string> {
  const exact = real(c, name);
  const near = nearReal(c, name);
  return fc.oneof(
    { weight: 4, arbitrary: anyQueryValue },
    ...(exact
      ? [
          { weight: 4, arbitrary: exact },
          { weight: 1, arbitrary: fc.array(exact, { minLength: 2, maxLength: 60 }).map((a) => a.join(',')) },
        ]
      : []),
    ...(near ? [{ weight: 1, arbitrary: near }] : []),
  );
}

const queryPair = (name: string, value: string, form: string): string =>
  form === 'encoded'
    ? `${pctEncode(name)}=${pctEncode(value)}`
    : form === 'bare'
      ? pctEncode(name)
      : `${name}=${value}`.replaceAll('#', '%23');

function queryString(c: FuzzCorpus, knownNames: readonly string[]) {
  // Arbitraries are built once, not per generated value (fast-check's `chain` rebuilds them every time).
  const known = [...new Set([...knownNames, ...QUERY_NAMES_ALWAYS])].map((k) =>
    fc.tuple(fc.constant(k), queryValueFor(c, k)),
  );
  const pair = fc
    .tuple(
      fc.oneof(
        { weight: 3, arbitrary: fc.oneof(...known) },
        { weight: 1, arbitrary: fc.tuple(unicodeText(12), anyQueryValue) },
      ),
      fc.constantFrom('encoded', 'raw', 'bare'),
    )
    .map(([[k, v], form]) => queryPair(k, v, form));
  return fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.join('&'));
}

/**
 * A query a handler would accept but for one or two things: some of the route's own parameters, each with a real
 * value (svc_id of a stored market, its outcome, a side) or an edge number, encoded as a client would.
 */
function plausibleQuery(c: FuzzCorpus, names: readonly string[]): fc.Arbitrary<string> {
  if (names.length === 0) return fc.constant('');
  const value = (k: string) =>
    fc.oneof(
      { weight: 6, arbitrary: real(c, k) ?? fc.constantFrom(...EDGE_NUMBERS) },
      { weight: 2, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
      { weight: 1, arbitrary: anyQueryValue },
    );
  return someOf(names.map((k) => value(k).map((v) => queryPair(k, v, 'encoded')))).map((pairs) =>
    pairs.join('&'),
  );
}

/** Each of `items` or nothing, independently (about half of them), in their order. */
function someOf<T>(items: Array<fc.Arbitrary<T>>): fc.Arbitrary<T[]> {
  return fc
    .tuple(...items.map((a) => fc.option(a, { nil: undefined, freq: 2 })))
    .map((values) => values.filter((v): v is Awaited<T> => v !== undefined) as T[]);
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

/** Credentials objects built from those: a paper account's with one of them put in. */
function hostileCredentials(c: FuzzCorpus): fc.Arbitrary<Record<string, unknown>> {
  const base = c.credentials.length > 0 ? fc.constantFrom(...c.credentials) : fc.constant({});
  return fc.oneof(
    fc.tuple(base, fc.constantFrom(...OUT_OF_RANGE_KEYS)).map(([a, k]) => ({ ...a, private_key: k })),
    fc.tuple(base, fc.constantFrom(...PASTED_SECRET_NAMES)).map(([a, n]) => ({ ...a, [n]: 'x' })),
    fc.tuple(base, fc.nat(), fc.constantFrom(...LONE_SURROGATES)).map(([a, i, v]) => ({
      ...a,
      [Object.keys(a)[i % Math.max(1, Object.keys(a).length)] ?? 'api_key_id']: v,
    })),
  );
}

const credentialish = fc.oneof(unicodeText(40), fc.jsonValue({ maxDepth: 2 }));
function credentialsHeader(c: FuzzCorpus) {
  const account = fc.constantFrom(...c.credentials);
  return fc.oneof(
    // A paper account's own credentials (accepted by the simulators), whole or with one field altered or dropped.
    ...(c.credentials.length > 0
      ? [
          { weight: 4, arbitrary: account.map(b64) },
          {
            weight: 2,
            arbitrary: fc.tuple(account, fc.nat(), credentialish).map(([a, i, v]) => {
              const names = Object.keys(a);
              const name = names[i % Math.max(1, names.length)] ?? 'private_key';
              return b64({ ...a, [name]: v });
            }),
          },
          {
            weight: 1,
            arbitrary: fc.tuple(account, fc.nat()).map(([a, i]) => {
              const names = Object.keys(a);
              const { [names[i % Math.max(1, names.length)] ?? '']: _dropped, ...rest } = a;
              return b64(rest);
            }),
          },
        ]
      : []),
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
    { weight: 2, arbitrary: hostileCredentials(c).map(b64) },
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
}

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

const extraHeaders = (c: FuzzCorpus) =>
  fc
    .record(
      {
        'x-exchange-credentials': credentialsHeader(c),
        'x-builder-customer-id': fc.oneof(real(c, 'customer_id') ?? headerValue(40), headerValue(80)),
        'idempotency-key': fc.oneof(
          { weight: 3, arbitrary: headerValue(40) },
          { weight: 1, arbitrary: fc.integer({ min: 190, max: 210 }).map((n) => 'i'.repeat(n)) },
        ),
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

const keyChoices: fc.Arbitrary<KeyChoice> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<KeyChoice>({ kind: 'scale' }) },
  { weight: 4, arbitrary: fc.constant<KeyChoice>({ kind: 'admin' }) },
  { weight: 2, arbitrary: fc.constant<KeyChoice>({ kind: 'builder' }) },
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
  '{"market_id":"\\udfff","outcome":"yes","side":"buy","price":0.5,"size":1}',
  '{"\\ud800":1}',
  `{"credentials":{"private_key":"${'f'.repeat(64)}"}}`,
  `{"exchange":"polymarket","mode":"self","private_key":"0x${'0'.repeat(64)}"}`,
  '{"name":"\\u0000"}',
  '\u0000',
  '{"tier":"free"',
] as const;

/** JSON text for a value following (or deliberately breaking) a property schema from the OpenAPI document. */
function valueText(c: FuzzCorpus, name: string, schema: Record<string, unknown>): fc.Arbitrary<string> {
  const fitting: Array<fc.Arbitrary<unknown>> = [];
  const known = realField(c, name);
  if (known) fitting.push(known);
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
    // Numbers written at the edges of the parsers: as JSON numbers where JSON allows, else as strings.
    fitting.push(fc.constantFrom(...EDGE_NUMBERS).map((n) => (Number.isFinite(Number(n)) ? Number(n) : n)));
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
function validValue(c: FuzzCorpus, name: string, schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  const known = realField(c, name);
  if (known) return fc.oneof({ weight: 3, arbitrary: known }, { weight: 1, arbitrary: anyValid(schema) });
  return anyValid(schema);
}

/** A corpus value for body field `name`: real text, or a paper account's credentials object. */
function realField(c: FuzzCorpus, name: string): fc.Arbitrary<unknown> | null {
  if (name === 'credentials') {
    if (c.credentials.length === 0) return null;
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...c.credentials) },
      { weight: 1, arbitrary: hostileCredentials(c) },
    );
  }
  if (name === 'private_key') return fc.constantFrom(...OUT_OF_RANGE_KEYS);
  const exact = real(c, name);
  if (name === 'market_id' && exact) {
    return fc.oneof(
      { weight: 4, arbitrary: exact },
      { weight: 1, arbitrary: fc.constantFrom(...LONE_SURROGATES) },
    );
  }
  return exact;
}

function anyValid(schema: Record<string, unknown>): fc.Arbitrary<unknown> {
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
function validBody(c: FuzzCorpus, schema: Record<string, unknown> | undefined): fc.Arbitrary<string> {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema?.required) ? (schema.required as string[]) : [];
  return fc
    .record(Object.fromEntries(Object.entries(properties).map(([n, p]) => [n, validValue(c, n, p)])), {
      requiredKeys: required,
    })
    .map((v) => JSON.stringify(v));
}

/** Near-valid objects built from a request body schema: subsets of its fields, wrong types, extras, duplicates. */
function guidedBody(c: FuzzCorpus, schema: Record<string, unknown> | undefined): fc.Arbitrary<string> {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const names = Object.keys(properties);
  if (names.length === 0) return fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
  const member = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.oneof(
        ...names.map((n) => valueText(c, n, properties[n] ?? {}).map((v) => [n, v] as const)),
      ),
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

function requestBody(c: FuzzCorpus, schema: Record<string, unknown> | undefined) {
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
    { weight: schema ? 4 : 0, arbitrary: json(validBody(c, schema)) },
    { weight: 4, arbitrary: json(guidedBody(c, schema)) },
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

export interface Route {
  method: string;
  template: string;
  queryNames: string[];
  bodySchema: Record<string, unknown> | undefined;
}

export interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
}

/** Every operation of the server's OpenAPI document. */
export function routesOf(doc: { paths: Record<string, Record<string, OpenApiOperation>> }): Route[] {
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

/**
 * Requests for `routes` and for paths no route serves. `protectedIds` are path values never sent as they are (the
 * fuzz's own keys); `corpus` holds the server's real values.
 */
export function requestSpecs(
  routes: Route[],
  protectedIds: ReadonlySet<string>,
  corpus: FuzzCorpus,
): fc.Arbitrary<RequestSpec> {
  const allQueryNames = [...new Set(routes.flatMap((r) => r.queryNames))];
  const keyChoice = keyChoices;
  const headers = extraHeaders(corpus);
  const fillTemplate = (template: string): fc.Arbitrary<string> => {
    const parts = template.split(/(\{[^}]+\})/).filter((p) => p.length > 0);
    return fc
      .tuple(...parts.map((p) => (p.startsWith('{') ? segmentFor(corpus, p.slice(1, -1)) : fc.constant(p))))
      .map((filled) => filled.join(''))
      .map((path) => {
        // Never revoke the keys the fuzz itself uses (random ids cannot match them, but be sure).
        const last = path.split('/').pop() ?? '';
        return protectedIds.has(decodeURIComponentSafe(last)) ? `${path}_not` : path;
      });
  };
  const known = fc.oneof(
    ...routes.map((route) =>
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
          { weight: 3, arbitrary: plausibleQuery(corpus, route.queryNames) },
          { weight: 3, arbitrary: queryString(corpus, [...route.queryNames, ...allQueryNames]) },
        ),
        key: keyChoice,
        headers: fc.oneof(
          { weight: 1, arbitrary: fc.constant<Record<string, string>>({}) },
          // A paper account's credentials alone: the trading and on-chain handlers then reach the exchange.
          ...(corpus.credentials.length > 0
            ? [
                {
                  weight: 1,
                  arbitrary: fc
                    .constantFrom(...corpus.credentials)
                    .map((a) => ({ 'x-exchange-credentials': b64(a) })),
                },
              ]
            : []),
          { weight: 2, arbitrary: headers },
        ),
        body: requestBody(corpus, route.bodySchema),
      }),
    ),
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
        fc.array(anySegment, { minLength: 1, maxLength: 4 }),
      )
      .map(([prefix, segments]) => prefix + segments.join('/')),
  );
  const unknown = fc.record({
    method: fc.constantFrom(...EXTRA_METHODS),
    path: unknownPath,
    query: queryString(corpus, allQueryNames),
    key: keyChoice,
    headers,
    body: requestBody(corpus, undefined),
  });
  return fc
    .oneof(
      { weight: 4, arbitrary: known },
      { weight: 3, arbitrary: fc.oneof(...routes.map((r) => plausible(corpus, r, fillTemplate))) },
      { weight: 1, arbitrary: unknown },
    )
    .map((spec) => ({
      ...spec,
      // fetch refuses a body on GET and HEAD.
      body: spec.method === 'GET' || spec.method === 'HEAD' ? null : spec.body,
    }));
}

/**
 * A request a handler would take but for one or two things: the route's own method and a filled path, the fuzz's
 * own keys, one stored market named consistently across query, body and the exchange's paper credentials, with
 * some fields swapped for edge numbers or hostile text. This is what gets the fuzz into the handlers: the order,
 * book and on-chain code paths behind validation.
 */
function plausible(
  c: FuzzCorpus,
  route: Route,
  fillTemplate: (template: string) => fc.Arbitrary<string>,
): fc.Arbitrary<RequestSpec> {
  if (c.markets.length === 0) return fc.constant({ ...EMPTY, method: route.method, path: route.template });
  const properties = (route.bodySchema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  // Fields the market fills are generated as SAME and replaced once the market is drawn (no per-value `chain`).
  const field = (name: string, schema: Record<string, unknown>) =>
    fc.oneof(
      {
        weight: 8,
        arbitrary: SAME_FIELDS.has(name) ? fc.constant<unknown>(SAME) : validValue(c, name, schema),
      },
      { weight: 1, arbitrary: validValue(c, name, schema) },
      { weight: 1, arbitrary: valueText(c, name, schema).map((t) => JSON.parse(t) as unknown) },
    );
  const queryValue = (name: string) =>
    fc.oneof(
      {
        weight: 8,
        arbitrary: SAME_FIELDS.has(name) ? fc.constant<string | symbol>(SAME) : queryValueFor(c, name),
      },
      { weight: 1, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
      { weight: 1, arbitrary: queryValueFor(c, name) },
    );
  const query = someOf(route.queryNames.map((n) => fc.tuple(fc.constant(n), queryValue(n))));
  const body = route.bodySchema
    ? fc.record(Object.fromEntries(Object.entries(properties).map(([n, p]) => [n, field(n, p)])), {
        requiredKeys: [],
      })
    : fc.constant(null);
  return fc
    .record({
      market: fc.constantFrom(...c.markets),
      outcomeAt: fc.nat(),
      accountAt: fc.nat(),
      path: fillTemplate(route.template),
      query,
      key: fc.constantFrom<KeyChoice>({ kind: 'scale' }, { kind: 'admin' }, { kind: 'builder' }),
      body,
    })
    .map(({ market: m, outcomeAt, accountAt, path, query: pairs, key, body: fields }): RequestSpec => {
      const same = sameOf(m, m.outcomes[outcomeAt % Math.max(1, m.outcomes.length)] ?? 'yes');
      const fill = (name: string, v: unknown) => (v === SAME ? same[name] : v);
      const accounts = c.accounts[m.exchange] ?? [];
      const account = accounts[accountAt % Math.max(1, accounts.length)];
      return {
        method: route.method,
        path,
        query: pairs.map(([n, v]) => queryPair(n, String(fill(n, v)), 'encoded')).join('&'),
        key,
        headers: account ? { 'x-exchange-credentials': b64(account) } : ({} as Record<string, string>),
        body: fields
          ? {
              contentType: 'application/json',
              text: JSON.stringify(
                Object.fromEntries(Object.entries(fields).map(([n, v]) => [n, fill(n, v)])),
              ),
            }
          : null,
      };
    });
}

const SAME: unique symbol = Symbol("the drawn market's value");
const SAME_FIELDS = new Set([
  'exchange',
  'exchanges',
  'svc_id',
  'svc_ids',
  'market_id',
  'exchange_market_id',
  'exchange_group_id',
  'event_id',
  'outcome',
  'condition_id',
  'price',
]);

/** The values one market gives the fields of SAME_FIELDS. */
function sameOf(m: CorpusMarket, outcome: string): Record<string, unknown> {
  return {
    exchange: m.exchange,
    exchanges: m.exchange,
    svc_id: m.svc_id,
    svc_ids: m.svc_id,
    market_id: m.exchange_market_id,
    exchange_market_id: m.exchange_market_id,
    exchange_group_id: m.exchange_group_id,
    event_id: m.svc_group_id,
    outcome,
    condition_id: m.condition_id ?? '0x',
    price: m.tick_size ?? 0.01,
  };
}

const EMPTY: RequestSpec = {
  method: 'GET',
  path: '/',
  query: '',
  key: { kind: 'none' },
  headers: {},
  body: null,
};

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export interface KeyLimits {
  tier: string;
  qps_limit?: number;
  burst?: number;
}

/** Limits a key may be created with (POST /keys), at and inside the schema's bounds. */
export const keyLimits: fc.Arbitrary<KeyLimits> = fc.record(
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
