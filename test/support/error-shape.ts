// The error body every failure must have: wire contract §1.
import assert from 'node:assert/strict';
import { ERROR_CODES, type ErrorCode } from '../../src/errors/codes.js';
import type { TestResponse } from './server.js';

export function assertError(res: TestResponse, status: number, code: string): Record<string, unknown> {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text}`);
  const body = res.body as Record<string, unknown>;
  assert.equal(typeof body, 'object');
  assert.equal(body.code, code, res.text);
  assert.equal(typeof body.error, 'string');
  assert.ok(Object.hasOwn(ERROR_CODES, code), `${code} is not a wire-contract code`);
  assert.equal(body.retryable, ERROR_CODES[code as ErrorCode].retryable);
  return body;
}
