import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../../src/errors/app-error.js';
import {
  mapVenueError,
  VenuePayloadError,
  VenueStatusError,
  VenueTransportError,
} from '../../../../src/venues/shared/venue-errors.js';

const status = (code: number, body: string, retryAfterMs: number | null = null) =>
  new VenueStatusError('polymarket', 'op', code, body, retryAfterMs, 3);

const rules = [
  { message: 'not enough balance', code: 'insufficient_funds' as const },
  { status: 400, message: /invalid signature/i, code: 'authentication_failed' as const },
  { venueCode: 'ORDER_NOT_FOUND', code: 'order_not_found' as const },
];

const codeOf = (e: unknown) => (e instanceof AppError ? e.code : String(e));

test('venue rules win over defaults: message substrings, regexes with a status, venue codes', () => {
  assert.equal(
    codeOf(mapVenueError(status(400, '{"error":"not enough balance / allowance"}'), rules)),
    'insufficient_funds',
  );
  assert.equal(
    codeOf(mapVenueError(status(400, '{"error":"invalid signature"}'), rules)),
    'authentication_failed',
  );
  // The regex rule is bound to 400: the same text with 500 falls through to the default.
  assert.equal(
    codeOf(mapVenueError(status(500, '{"error":"invalid signature"}'), rules)),
    'service_unavailable',
  );
  const byCode = mapVenueError(status(404, '{"code":"ORDER_NOT_FOUND"}'), rules, () => 'ORDER_NOT_FOUND');
  assert.equal(codeOf(byCode), 'order_not_found');
});

test("the venue's message is read from `errmsg` too (Opinion's {errno, errmsg, result} envelope)", () => {
  const error = status(400, '{"errno":10002,"errmsg":"market not found","result":null}');
  assert.equal(error.venueMessage(), 'market not found');
  const mapped = mapVenueError(error, rules);
  assert.ok(mapped instanceof AppError && mapped.message.includes('market not found'));
});

test('defaults: 429 and 5xx are service_unavailable, 401/403 authentication_failed, 404 not_found, 4xx bad_request', () => {
  const limited = mapVenueError(status(429, 'slow down', 7_000), []);
  assert.ok(limited instanceof AppError);
  assert.equal(limited.code, 'service_unavailable');
  assert.equal(limited.retryable, true);
  assert.deepEqual(limited.headers, { 'retry-after': '7' });
  assert.equal(codeOf(mapVenueError(status(502, ''), [])), 'service_unavailable');
  assert.equal(codeOf(mapVenueError(status(401, '{"message":"Unauthorized"}'), [])), 'authentication_failed');
  assert.equal(codeOf(mapVenueError(status(403, ''), [])), 'authentication_failed');
  assert.equal(codeOf(mapVenueError(status(404, ''), [])), 'not_found');
  const bad = mapVenueError(status(422, '{"error":{"message":"price must be on tick"}}'), []);
  assert.ok(
    bad instanceof AppError && bad.code === 'bad_request' && bad.message.includes('price must be on tick'),
  );
});

test('transport failures and answers that are not JSON are service_unavailable; fields that did not decode are exchange_format_changed; other errors pass through untouched', () => {
  assert.equal(
    codeOf(mapVenueError(new VenueTransportError('kalshi', 'op', 'timeout', true, 1), [])),
    'service_unavailable',
  );
  assert.equal(
    codeOf(mapVenueError(new VenuePayloadError('kalshi', 'op', ['body is not JSON: <html>']), [])),
    'service_unavailable',
  );
  assert.equal(
    codeOf(mapVenueError(new VenuePayloadError('kalshi', 'op', ['/x must be string'], ['/x']), [])),
    'exchange_format_changed',
  );
  const bug = new TypeError('x is undefined');
  assert.equal(mapVenueError(bug, rules), bug);
});
