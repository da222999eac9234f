// The minimums a taker leg is planned within: the market's minimum size and the venue's published minimum order
// value, where it binds (Polymarket: $1 on a marketable buy, replacing the share minimum there; Predict.fun: $0.9 on
// every order), from the real descriptors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { legMinimums } from '../../../../src/services/crossvenue/order-minimums.js';
import { kalshiDescriptor as kalshi } from '../../../../src/venues/kalshi/descriptor.js';
import { POLYMARKET_DESCRIPTOR as polymarketDescriptor } from '../../../../src/venues/polymarket/descriptor.js';
import { PREDICTFUN_DESCRIPTOR as predictfunDescriptor } from '../../../../src/venues/predictfun/descriptor.js';

const show = (m: ReturnType<typeof legMinimums>) => [m.size?.toString() ?? null, m.value?.toString() ?? null];

test('polymarket: $1 binds a buy only; the 5-share minimum stays in a plan, and goes where $1 replaces it', () => {
  assert.deepEqual(show(legMinimums(polymarketDescriptor, 'buy', 5)), ['5', '1']);
  assert.deepEqual(show(legMinimums(polymarketDescriptor, 'buy', 5, true)), [null, '1']);
  assert.deepEqual(show(legMinimums(polymarketDescriptor, 'sell', 5, true)), ['5', null]);
});

test('predictfun: $0.9 on every order; kalshi: the market’s minimum size only', () => {
  assert.deepEqual(show(legMinimums(predictfunDescriptor, 'sell', null, true)), [null, '0.9']);
  assert.deepEqual(show(legMinimums(predictfunDescriptor, 'buy', 1)), ['1', '0.9']);
  assert.deepEqual(show(legMinimums(kalshi(true), 'buy', 1, true)), ['1', null]);
  assert.deepEqual(show(legMinimums(kalshi(true), 'buy', null)), [null, null]);
});
