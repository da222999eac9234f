// Logs as verbose as the service can make them (trace level, access log on) while requests carry every kind of
// secret the API handles: the admin key, a key created over HTTP, an unknown key, exchange credentials in
// X-Exchange-Credentials, secrets inside a malformed JSON body. None of those values may appear in any log line.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { assertError } from '../../support/error-shape.js';
import { instantVenue } from '../../support/loopback-venue.js';
import { startTestServer, type TestServer } from '../../support/server.js';

// Stand-in venues at the adapter port, so X-Exchange-Credentials is really decoded and handed to a venue (with
// no venue enabled, `?exchange=kalshi` stops at 404 before the header is read). Like a careless adapter, they log
// the session they receive through the request logger: redaction must cover that shape too.
const logSession = (session: unknown, ctx: { logger: { debug(o: object, m?: string): void } }) =>
  ctx.logger.debug({ session }, 'fake venue ping');
const VENUES = [instantVenue('kalshi', logSession), instantVenue('polymarket', logSession)];

/** A distinctive value: alphanumeric so that it reads the same raw, JSON-escaped or URL-encoded. */
const secret = (label: string): string => `${label}${randomBytes(12).toString('hex')}`;
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

/** Every value that must never reach a log line, by what it is (for the failure message). */
const secrets = new Map<string, string>();
const remember = (what: string, value: string): string => {
  secrets.set(what, value);
  return value;
};

let server: TestServer;
before(async () => {
  server = await startTestServer({ config: { logLevel: 'trace', accessLog: true }, venues: VENUES });
  remember('admin key', server.adminKey);
});
after(() => server.stop());

test('requests carrying keys and credentials leave no secret in the trace-level logs', async () => {
  const { request } = server;

  // The admin key, on several routes.
  assert.equal((await request('/api/v1/exchanges')).status, 200);
  assert.equal((await request('/api/v1/usage')).status, 200);
  assert.equal((await request('/api/v1/keys')).status, 200);

  // An unknown key, on two routes.
  const unknownKey = remember('unknown key', secret('ob_unknownkey'));
  assertError(await request('/api/v1/exchanges', { key: unknownKey }), 401, 'unauthorized');
  assertError(await request('/api/v1/ping?exchange=kalshi', { key: unknownKey }), 401, 'unauthorized');

  // Kalshi credentials: accepted, handed to the venue (which logs its session), tried and dropped.
  const kalshi = {
    api_key_id: remember('kalshi api_key_id', secret('kalshikeyid')),
    private_key: remember('kalshi private_key', secret('kalshiprivatekey')),
  };
  const kalshiHeader = remember('kalshi X-Exchange-Credentials header', b64(kalshi));
  const pinged = await request('/api/v1/ping?exchange=kalshi', {
    headers: { 'x-exchange-credentials': kalshiHeader },
  });
  assert.equal(pinged.status, 200, pinged.text);
  assert.deepEqual(pinged.body, [
    { exchange: 'kalshi', has_credentials: true, authenticated: true, message: 'ok' },
  ]);

  // Polymarket credentials with every secret field.
  const polymarket = {
    private_key: remember('polymarket private_key', `0x${secret('polyprivatekey')}`),
    clob_api_key: remember('polymarket clob_api_key', secret('clobapikey')),
    clob_api_secret: remember('polymarket clob_api_secret', secret('clobapisecret')),
    clob_api_passphrase: remember('polymarket clob_api_passphrase', secret('clobapipassphrase')),
  };
  const polyHeader = remember('polymarket X-Exchange-Credentials header', b64(polymarket));
  const polyPing = await request('/api/v1/ping?exchange=polymarket', {
    headers: { 'x-exchange-credentials': polyHeader },
  });
  assert.equal(polyPing.status, 200, polyPing.text);

  // Credentials the server refuses: wrong exchange, wrong types, an unknown field, not base64 JSON at all, no
  // exchange parameter, an exchange this server does not run. Each failure must name fields, never values.
  const refusals: Array<[string, Record<string, string>, number, string]> = [
    ['/api/v1/ping?exchange=polymarket', { 'x-exchange-credentials': kalshiHeader }, 400, 'validation_error'],
    [
      '/api/v1/ping?exchange=kalshi',
      {
        'x-exchange-credentials': remember(
          'nested credentials header',
          b64({ api_key_id: { nested: kalshi.api_key_id }, private_key: [polymarket.clob_api_secret] }),
        ),
      },
      400,
      'validation_error',
    ],
    [
      '/api/v1/ping?exchange=kalshi',
      {
        'x-exchange-credentials': remember(
          'unknown-field credentials header',
          b64({ ...kalshi, passphrase: remember('unknown credential field value', secret('extrafield')) }),
        ),
      },
      400,
      'validation_error',
    ],
    [
      '/api/v1/ping?exchange=kalshi',
      { 'x-exchange-credentials': remember('raw (not base64) credentials', secret('rawcredentials')) },
      400,
      'bad_request',
    ],
    ['/api/v1/ping', { 'x-exchange-credentials': polyHeader }, 400, 'validation_error'],
    ['/api/v1/ping?exchange=opinion', { 'x-exchange-credentials': polyHeader }, 404, 'exchange_not_found'],
    ['/api/v1/nothing-here', { 'x-exchange-credentials': kalshiHeader }, 404, 'not_found'],
  ];
  for (const [path, headers, status, code] of refusals) {
    const res = await request(path, { headers });
    assertError(res, status, code);
    for (const [what, value] of secrets)
      assert.ok(!res.text.includes(value), `${path} echoed the ${what}: ${res.text}`);
  }

  // Other conventional secret carriers.
  const bearer = remember('Authorization bearer', secret('bearertoken'));
  const cookie = remember('session cookie', secret('sessioncookie'));
  assert.equal(
    (
      await request('/api/v1/exchanges', {
        headers: { authorization: `Bearer ${bearer}`, cookie: `sid=${cookie}` },
      })
    ).status,
    200,
  );

  // A key created over HTTP: the response is the one place its clear value appears.
  const created = await request('/api/v1/keys', {
    method: 'POST',
    body: { tier: 'pro', name: 'log redaction' },
  });
  assert.equal(created.status, 201, created.text);
  const { id: createdId, key: createdKey } = created.body as { id: string; key: string };
  remember('key created over HTTP', createdKey);
  assert.equal((await request('/api/v1/usage', { key: createdKey })).status, 200);
  assertError(await request('/api/v1/keys', { key: createdKey }), 403, 'forbidden');

  // A secret pasted into the query string (a common client mistake) is refused and not logged.
  const querySecret = remember('api key in a query string', secret('querykey'));
  assertError(await request(`/api/v1/exchanges?api_key=${querySecret}`), 400, 'validation_error');

  // Malformed and invalid bodies carrying secrets.
  const bodySecret = remember('secret inside a malformed JSON body', secret('malformedbody'));
  assertError(
    await request('/api/v1/keys', {
      method: 'POST',
      rawBody: `{"tier": "free", "name": "${bodySecret}", "private_key": "${bodySecret}",`,
      headers: { 'content-type': 'application/json' },
    }),
    400,
    'bad_request',
  );
  const invalidSecret = remember('secret inside a schema-invalid body', secret('invalidbody'));
  assertError(
    await request('/api/v1/keys', {
      method: 'POST',
      body: { tier: invalidSecret, name: 7, password: invalidSecret, qps_limit: invalidSecret },
    }),
    400,
    'validation_error',
  );
  const xmlSecret = remember('secret inside a non-JSON body', secret('xmlbody'));
  assertError(
    await request('/api/v1/keys', {
      method: 'POST',
      rawBody: `<key><secret>${xmlSecret}</secret></key>`,
      headers: { 'content-type': 'application/xml' },
    }),
    415,
    'unsupported_media_type',
  );

  // 404s, with and without a key.
  assertError(await request('/api/v1/nothing-here'), 404, 'not_found');
  assertError(await request('/nothing', { key: unknownKey }), 404, 'not_found');

  // 429: a slow key hit twice.
  const slow = await request('/api/v1/keys', {
    method: 'POST',
    body: { tier: 'free', qps_limit: 0.1, burst: 1 },
  });
  assert.equal(slow.status, 201, slow.text);
  const slowKey = remember('rate-limited key', (slow.body as { key: string }).key);
  assert.equal((await request('/api/v1/exchanges', { key: slowKey })).status, 200);
  assertError(await request('/api/v1/exchanges', { key: slowKey }), 429, 'rate_limit_exceeded');

  // Revocation, then the revoked key.
  assert.equal((await request(`/api/v1/keys/${createdId}`, { method: 'DELETE' })).status, 200);
  assertError(await request('/api/v1/usage', { key: createdKey }), 401, 'unauthorized');

  // Stopping flushes the logger and adds the shutdown lines.
  await server.stop();

  const lines = server.logs
    .join('')
    .split('\n')
    .filter((l) => l.trim().length > 0);
  assert.ok(lines.length > 0, 'no log line at all: logging is off');
  const parsed = lines.map((l) => JSON.parse(l) as { level?: number; msg?: string; req?: { url?: string } });
  const incoming = parsed.filter((l) => l.msg === 'incoming request' && typeof l.req?.url === 'string');
  assert.ok(incoming.length >= 20, `expected an access log line per request, found ${incoming.length}`);
  assert.ok(
    parsed.some((l) => l.level !== undefined && l.level < 30),
    'no debug or trace line: the trace level did not take effect',
  );

  const joined = lines.join('\n');
  const leaks: string[] = [];
  for (const [what, value] of secrets) {
    const line = lines.find((l) => l.includes(value));
    if (line) leaks.push(`${what} (${value}) in: ${line.slice(0, 600)}`);
  }
  assert.deepEqual(leaks, [], `secrets found in the logs:\n${leaks.join('\n')}`);
  assert.ok(!joined.includes(server.adminKey));
});
