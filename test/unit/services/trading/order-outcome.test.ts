import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../../src/errors/app-error.js';
import { classifySendFailure } from '../../../../src/services/trading/order-outcome.js';
import {
  mapVenueError,
  VenuePayloadError,
  VenueStatusError,
  VenueTransportError,
} from '../../../../src/venues/shared/venue-errors.js';

test('after sending, any 503 may be an order that exists: a timeout, a 5xx, an answer in a format we cannot read', () => {
  const timeout = mapVenueError(new VenueTransportError('kalshi', 'create_order', 'timeout', true, 1), []);
  const unreadable = mapVenueError(
    new VenuePayloadError('kalshi', 'create_order', ['/order/order_id must be string'], ['/order/order_id']),
    [],
  );
  assert.equal((unreadable as AppError).code, 'exchange_format_changed');
  for (const error of [timeout, unreadable]) assert.equal(classifySendFailure(error, true).kind, 'unknown');
  // The exchange's answer was a refusal, or the request provably never arrived: rejected.
  const refused = mapVenueError(new VenueStatusError('kalshi', 'create_order', 400, 'bad', null, 1), []);
  assert.equal(classifySendFailure(refused, true).kind, 'rejected');
  const limited = mapVenueError(new VenueStatusError('kalshi', 'create_order', 429, '', 1000, 1), []);
  assert.equal(classifySendFailure(limited, true).kind, 'rejected');
  const neverSent = mapVenueError(new VenueTransportError('kalshi', 'create_order', 'refused', false, 1), []);
  assert.equal(classifySendFailure(neverSent, true).kind, 'rejected');
  // Nothing sent: whatever the error, the order does not exist.
  assert.equal(classifySendFailure(new AppError('exchange_format_changed', 'x'), false).kind, 'rejected');
});
