import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { AppError } from '../../../src/errors/app-error.js';
import { installErrorHandling } from '../../../src/http/plugins/error-handler.js';

async function appWith(handler: () => unknown) {
  const app = Fastify({ logger: false });
  installErrorHandling(app);
  app.get('/boom', async () => handler());
  await app.ready();
  return app;
}

test('a programming error is 500 internal_error with the request id, never blamed on the client', async () => {
  const app = await appWith(() => {
    throw new TypeError("Cannot read properties of undefined (reading 'x')");
  });
  const res = await app.inject({ url: '/boom', headers: { 'x-request-id': 'req-123' } });
  assert.equal(res.statusCode, 500);
  const body = res.json();
  assert.equal(body.code, 'internal_error');
  assert.equal(body.retryable, false);
  assert.equal(typeof body.request_id, 'string');
  assert.ok(!String(body.error).includes('Cannot read properties'), 'internal details leak to the client');
});

test('an AppError keeps its status, code, retryable flag, extra fields and headers', async () => {
  const app = await appWith(() => {
    throw new AppError('service_unavailable', 'kalshi timed out', { headers: { 'retry-after': '2' } });
  });
  const res = await app.inject({ url: '/boom' });
  assert.equal(res.statusCode, 503);
  assert.deepEqual(res.json(), { error: 'kalshi timed out', code: 'service_unavailable', retryable: true });
  assert.equal(res.headers['retry-after'], '2');
});
