import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, type TestServer } from '../../support/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({
    config: { http: { bodyLimitBytes: 4096, requestTimeoutMs: 30_000, trustProxy: false } },
  });
});
after(() => server.stop());

test('an unknown query parameter is 400 validation_error naming it', async () => {
  const res = await server.request('/api/v1/exchanges?colour=blue');
  const body = assertError(res, 400, 'validation_error');
  assert.deepEqual(body.validation_errors, ["query: unknown parameter 'colour'"]);
});

test('a bad body is 400 with every problem listed', async () => {
  const res = await server.request('/api/v1/keys', {
    method: 'POST',
    body: { tier: 'gold', qps_limit: -1, extra: 1 },
  });
  const body = assertError(res, 400, 'validation_error');
  const errors = body.validation_errors as string[];
  assert.ok(
    errors.some((e) => e.startsWith('body.tier: must be one of free, pro, scale, admin')),
    errors.join(' | '),
  );
  assert.ok(
    errors.some((e) => e.startsWith('body.qps_limit:')),
    errors.join(' | '),
  );
  assert.ok(errors.includes("body: unknown field 'extra'"), errors.join(' | '));
});

test('a number too large to be finite is 400, in the query and in a body (Ajv coerces 1e309 to Infinity)', async () => {
  for (const value of ['1e309', '-1e309', 'Infinity']) {
    const res = await server.request(`/api/v1/markets?limit=${value}`);
    const body = assertError(res, 400, 'validation_error');
    assert.ok(
      (body.validation_errors as string[]).some((e) => e.startsWith('query.limit:')),
      String(body.validation_errors),
    );
  }
  const res = await server.request('/api/v1/keys', {
    method: 'POST',
    rawBody: '{"tier": "free", "qps_limit": 1e309}',
    headers: { 'content-type': 'application/json' },
  });
  const body = assertError(res, 400, 'validation_error');
  assert.ok(
    (body.validation_errors as string[]).some((e) => e.startsWith('body.qps_limit:')),
    String(body.validation_errors),
  );
});

test('a missing required field is 400 missing_parameter', async () => {
  const res = await server.request('/api/v1/keys', { method: 'POST', body: {} });
  const body = assertError(res, 400, 'missing_parameter');
  assert.deepEqual(body.validation_errors, ["body: missing required field 'tier'"]);
});

test('malformed JSON is 400 bad_request', async () => {
  const res = await server.request('/api/v1/keys', {
    method: 'POST',
    rawBody: '{"tier": "free",',
    headers: { 'content-type': 'application/json' },
  });
  assertError(res, 400, 'bad_request');
});

test('an oversize body is 413 and a non-JSON content type is 415, both in the error shape', async () => {
  const big = await server.request('/api/v1/keys', {
    method: 'POST',
    body: { tier: 'free', name: 'x'.repeat(10_000) },
  });
  assertError(big, 413, 'payload_too_large');
  const xml = await server.request('/api/v1/keys', {
    method: 'POST',
    rawBody: '<tier>free</tier>',
    headers: { 'content-type': 'application/xml' },
  });
  assertError(xml, 415, 'unsupported_media_type');
});

test('unknown routes are 404 JSON, inside and outside /api/v1, with or without a key', async () => {
  assertError(await server.request('/api/v1/nothing-here'), 404, 'not_found');
  assertError(await server.request('/api/v1/nothing-here', { key: null }), 404, 'not_found');
  assertError(await server.request('/nothing', { method: 'POST', body: { a: 1 } }), 404, 'not_found');
});

test('an unknown exchange id is 404 exchange_not_found; so is a real one this server does not run', async () => {
  const unknown = await server.request('/api/v1/ping?exchange=binance');
  assertError(unknown, 404, 'exchange_not_found');
  const notEnabled = await server.request('/api/v1/ping?exchange=kalshi');
  assertError(notEnabled, 404, 'exchange_not_found');
});

test('a malformed X-Exchange-Credentials header is a 400, never a 500', async () => {
  const res = await server.request('/api/v1/ping', {
    headers: { 'x-exchange-credentials': '%%%not-base64' },
  });
  assert.equal(res.status, 400, res.text);
});

test('the OpenAPI document lists the API routes and /docs is served locally', async () => {
  const doc = (await server.request('/openapi.json', { key: null })).body as {
    openapi: string;
    paths: Record<string, unknown>;
  };
  assert.equal(doc.openapi, '3.1.0');
  for (const path of ['/api/v1/exchanges', '/api/v1/ping', '/api/v1/usage', '/api/v1/keys']) {
    assert.ok(doc.paths[path], `${path} missing from OpenAPI`);
  }
  const docs = await server.request('/docs/', { key: null });
  assert.equal(docs.status, 200);
  assert.match(docs.text, /swagger-ui/i);
  assert.ok(!/https?:\/\/(cdn|unpkg|cdnjs|jsdelivr)/i.test(docs.text), 'docs page loads assets from a CDN');
});

test('/healthz reports the database, workers and venues; /metrics counts requests by route', async () => {
  const health = await server.request('/healthz', { key: null });
  assert.equal(health.status, 200);
  const report = health.body as {
    status: string;
    database: { ok: boolean; dialect: string };
    workers: Array<{ name: string }>;
  };
  assert.equal(report.status, 'ok');
  assert.deepEqual(report.database, { ok: true, dialect: 'sqlite' });
  assert.ok(report.workers.some((w) => w.name === 'usage-flush'));
  await server.request('/api/v1/exchanges');
  assert.equal((await server.request('/no/such/route', { key: null })).status, 404);
  const metrics = await server.request('/metrics', { key: null });
  // Paths no route matched share one label, whatever the path.
  assert.match(
    metrics.text,
    /omnibook_http_requests_total\{method="GET",route="unmatched",status="404"\} \d+\n/,
  );
  assert.doesNotMatch(metrics.text, /no\/such\/route/);
  assert.match(
    metrics.text,
    /omnibook_http_requests_total\{method="GET",route="\/api\/v1\/exchanges",status="200"\} \d+/,
  );
  assert.match(
    metrics.text,
    /omnibook_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/v1\/exchanges"\}/,
  );
});

test('limits outside the bounds the limiter can honour, and NUL characters in text, are 400 before any write', async () => {
  const tiny = await server.request('/api/v1/keys', {
    method: 'POST',
    body: { tier: 'free', qps_limit: 1e-9 },
  });
  assertError(tiny, 400, 'validation_error');
  const nul = await server.request('/api/v1/keys', {
    method: 'POST',
    body: { tier: 'free', name: 'a\u0000b' },
  });
  assertError(nul, 400, 'bad_request');
  const before = (await server.request('/api/v1/keys')).body as unknown[];
  assert.ok(!JSON.stringify(before).includes('\\u0000'));
});

test('a malformed URL and an over-long path parameter answer in the error shape', async () => {
  assertError(await server.request('/api/v1/%'), 400, 'bad_request');
  const long = await server.request(`/api/v1/keys/${'k'.repeat(200)}`, { method: 'DELETE' });
  assert.ok(long.status >= 400 && long.status < 500, long.text);
  assert.equal((long.body as { code: string }).code, 'bad_request');
});
