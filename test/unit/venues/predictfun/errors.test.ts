// Predict.fun's error table on the recorded error bodies: the `error` slug decides where it can, the venue's own
// message reaches the client, and transport-level failures stay 503.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../../src/errors/app-error.js';
import { mapPredictfunError, predictfunErrorSlug } from '../../../../src/venues/predictfun/errors.js';
import { VenueStatusError } from '../../../../src/venues/shared/venue-errors.js';
import { loadFixture } from '../../../support/fixtures.js';

const statusError = (status: number, body: unknown) =>
  new VenueStatusError('predictfun', 'test', status, JSON.stringify(body), null, 1);

function mapped(status: number, body: unknown): AppError {
  const error = mapPredictfunError(statusError(status, body));
  assert.ok(error instanceof AppError);
  return error;
}

test('recorded order errors: an allowance short of the bid is insufficient_funds, a too-small order a 400 with its text', () => {
  const allowance = loadFixture('predictfun', 'http_post_v1_orders_error_insufficient_allowance.json');
  assert.equal(
    predictfunErrorSlug(statusError(400, allowance)),
    'create_order_insufficient_collateral_allowance',
  );
  const funds = mapped(400, allowance);
  assert.deepEqual([funds.code, funds.status], ['insufficient_funds', 402]);
  assert.match(funds.message, /USDT allowance is less than the total bid amount/);
  const small = mapped(400, loadFixture('predictfun', 'http_post_v1_orders_error_min_order_value.json'));
  assert.deepEqual([small.code, small.status], ['validation_error', 400]);
  assert.match(small.message, /order must have a value of at least 0\.9 USD/);
});

test('not_found is market_not_found for markets and books, event_not_found for categories', () => {
  const envelope = (message: string) => ({ success: false, code: 404, error: 'not_found', message });
  assert.equal(mapped(404, envelope('Market not found')).code, 'market_not_found');
  assert.equal(mapped(404, envelope('Orderbook not found')).code, 'market_not_found');
  assert.equal(mapped(404, envelope('Category not found')).code, 'event_not_found');
  assert.equal(mapped(404, envelope('Cannot GET /v1/x')).code, 'not_found');
});

test('rate limits and server errors are 503 service_unavailable, retryable; a non-JSON body is read as text', () => {
  const limited = mapped(429, { success: false, code: 429, error: 'too_many_requests', message: 'slow' });
  assert.deepEqual([limited.code, limited.retryable], ['service_unavailable', true]);
  assert.equal(mapped(502, '<html>bad gateway</html>').code, 'service_unavailable');
  assert.equal(predictfunErrorSlug(new VenueStatusError('predictfun', 't', 502, '<html>', null, 1)), null);
});
