// The error body every failure must have: wire contract §1.
import assert from 'node:assert/strict';
import type { TestResponse } from './server.js';

export function assertError(res: TestResponse, status: number, code: string): Record<string, unknown> {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text}`);
  const body = res.body as Record<string, unknown>;
  assert.equal(typeof body, 'object');
  assert.equal(body.code, code, res.text);
  assert.equal(typeof body.error, 'string');
  assert.equal(body.retryable, code === 'rate_limit_exceeded' || code === 'service_unavailable');
  return body;
}
