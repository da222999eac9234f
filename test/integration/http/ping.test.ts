import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { CAPABILITIES } from '../../../src/domain/capabilities.js';
import { assertError } from '../../support/error-shape.js';
import { loopbackVenue } from '../../support/loopback-venue.js';
import { startTestServer, type TestServer } from '../../support/server.js';

let upstream: Server;
let server: TestServer;
const credentials = (token: string) => Buffer.from(JSON.stringify({ token })).toString('base64');

before(async () => {
  upstream = createServer((req, res) => {
    res.statusCode = req.headers.authorization === 'Bearer good' ? 200 : 401;
    res.end('{}');
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const port = (upstream.address() as AddressInfo).port;
  server = await startTestServer({
    venues: [
      loopbackVenue('kalshi', `http://127.0.0.1:${port}`),
      // Nothing listens on port 9 of loopback: this venue is unreachable.
      loopbackVenue('opinion', 'http://127.0.0.1:9'),
    ],
  });
});
after(async () => {
  await server.stop();
  upstream.close();
});

test('GET /exchanges lists every registered venue with all capability flags as booleans', async () => {
  const res = await server.request('/api/v1/exchanges');
  assert.equal(res.status, 200);
  const list = res.body as Array<{ id: string; has: Record<string, boolean> }>;
  assert.deepEqual(
    list.map((e) => e.id),
    ['kalshi', 'opinion'],
  );
  assert.deepEqual(Object.keys(list[0]?.has ?? {}), [...CAPABILITIES]);
  assert.ok(Object.values(list[0]?.has ?? {}).every((v) => v === false));
});

test('GET /ping reports each venue; an unreachable one is reported, not thrown', async () => {
  const res = await server.request('/api/v1/ping');
  assert.equal(res.status, 200, res.text);
  const results = res.body as Array<{
    exchange: string;
    has_credentials: boolean;
    authenticated: boolean;
    message: string;
  }>;
  const kalshi = results.find((r) => r.exchange === 'kalshi');
  const opinion = results.find((r) => r.exchange === 'opinion');
  assert.deepEqual(kalshi, {
    exchange: 'kalshi',
    has_credentials: false,
    authenticated: false,
    message: 'reachable; no credentials',
  });
  assert.equal(opinion?.authenticated, false);
  assert.match(opinion?.message ?? '', /^unreachable/);
});

test('per-request credentials are tried and reported, good and bad', async () => {
  const good = await server.request('/api/v1/ping?exchange=kalshi', {
    headers: { 'x-exchange-credentials': credentials('good') },
  });
  assert.deepEqual(good.body, [
    { exchange: 'kalshi', has_credentials: true, authenticated: true, message: 'authenticated' },
  ]);
  const bad = await server.request('/api/v1/ping?exchange=kalshi', {
    headers: { 'x-exchange-credentials': credentials('bad') },
  });
  assert.deepEqual(bad.body, [
    { exchange: 'kalshi', has_credentials: true, authenticated: false, message: 'credentials rejected' },
  ]);
});

test('credentials with missing or foreign fields are 400 validation_error naming the field, not the value', async () => {
  const wrong = Buffer.from(JSON.stringify({ secret_sauce: 'hunter2' })).toString('base64');
  const res = await server.request('/api/v1/ping?exchange=kalshi', {
    headers: { 'x-exchange-credentials': wrong },
  });
  const body = assertError(res, 400, 'validation_error');
  assert.ok((body.validation_errors as string[]).includes('credentials.token is required for kalshi'));
  assert.ok(!res.text.includes('hunter2'));
  const noExchange = await server.request('/api/v1/ping', {
    headers: { 'x-exchange-credentials': credentials('good') },
  });
  assertError(noExchange, 400, 'validation_error');
});
