// Opinion order and fill normalizers: the documented status codes each map to one of our statuses, a pending order
// with shares filled is partially filled, an undocumented status or side is the venue failing us (503), `sideEnum`
// wins over the ambiguous numeric side, and a fill is a taker's exactly when it carries a fee. No recorded order
// payloads exist (Opinion has no sandbox); the shapes are the generated client's (OpenapiOrderDataOpenApi).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ORDER_STATUSES } from '../../../../src/domain/trading.js';
import { AppError } from '../../../../src/errors/app-error.js';
import { toFill, toOrder } from '../../../../src/venues/opinion/parse-trading.js';
import type { OpinionOrder } from '../../../../src/venues/opinion/payloads.js';
import { assertProperty } from '../../../support/property.js';

const order = (over: Partial<OpinionOrder>): OpinionOrder => ({
  orderId: 'bf422131-122b-7e01-d3e4-4da19a21fc41',
  marketId: 106,
  side: 1,
  sideEnum: 'Buy',
  outcome: 'Yes',
  outcomeSide: 1,
  price: '0.437',
  orderShares: '5',
  filledShares: '0',
  status: 1,
  createdAt: 1_796_165_531,
  ...over,
});

test('documented statuses map one to one; pending with a fill is partially filled', () => {
  assert.equal(toOrder(order({ status: 1 })).status, 'open');
  assert.equal(toOrder(order({ status: 1, filledShares: '2' })).status, 'partially_filled');
  assert.equal(toOrder(order({ status: 2, filledShares: '5' })).status, 'filled');
  assert.equal(toOrder(order({ status: 3 })).status, 'cancelled');
  assert.equal(toOrder(order({ status: 4 })).status, 'expired');
  assert.equal(toOrder(order({ status: 5 })).status, 'rejected');
  assert.throws(
    () => toOrder(order({ status: 9 })),
    (e) => e instanceof AppError && e.code === 'service_unavailable',
  );
  const o = toOrder(order({}));
  assert.deepEqual(o, {
    id: 'bf422131-122b-7e01-d3e4-4da19a21fc41',
    market_id: '106',
    outcome: 'Yes',
    side: 'buy',
    price: 0.437,
    size: 5,
    filled: 0,
    status: 'open',
    created_at: new Date(1_796_165_531_000).toISOString(),
    updated_at: null,
  });
});

test('sideEnum wins over the numeric side; an undocumented side is refused', () => {
  assert.equal(toOrder(order({ sideEnum: 'Sell', side: 1 })).side, 'sell');
  assert.equal(toOrder(order({ sideEnum: null, side: 2 })).side, 'sell');
  assert.equal(toOrder(order({ sideEnum: null, side: 0 })).side, 'buy');
  assert.throws(() => toOrder(order({ sideEnum: null, side: 7 })), AppError);
});

test('any order document reads into an order of ours or is refused, never half-read', () => {
  assertProperty(
    fc.property(
      fc.integer({ min: 0, max: 7 }),
      fc.constantFrom('0', '1.5', '5', 'x', null),
      fc.constantFrom('Buy', 'Sell', 'sell', '', null),
      (status, filled, sideEnum) => {
        try {
          const o = toOrder(order({ status, filledShares: filled, sideEnum }));
          assert.ok(ORDER_STATUSES.includes(o.status));
          assert.ok(o.side === 'buy' || o.side === 'sell');
          assert.ok(Number.isFinite(o.filled) && o.filled >= 0);
        } catch (error) {
          assert.ok(error instanceof AppError && error.code === 'service_unavailable', String(error));
        }
      },
    ),
    { examples: [] },
  );
});

test('a fill is a taker fill exactly when Opinion charged a fee', () => {
  const row = {
    tradeNo: '8000000000106',
    orderNo: 'bf422131-122b-7e01-d3e4-4da19a21fc41',
    marketId: 106,
    side: 'Buy',
    outcome: 'Yes',
    outcomeSide: 1,
    price: '0.437',
    shares: '5',
    feeFormatted: '0.043006',
    createdAt: 1_796_165_531,
  };
  assert.deepEqual(toFill(row), {
    fill_id: '8000000000106',
    order_id: 'bf422131-122b-7e01-d3e4-4da19a21fc41',
    market_id: '106',
    outcome: 'Yes',
    side: 'buy',
    price: 0.437,
    size: 5,
    is_taker: true,
    fee: 0.043006,
    created_at: new Date(1_796_165_531_000).toISOString(),
  });
  assert.equal(toFill({ ...row, feeFormatted: '0', side: 'Sell' }).is_taker, false);
  assert.equal(toFill({ ...row, feeFormatted: '0', side: 'Sell' }).side, 'sell');
  assert.equal(toFill({ ...row, feeFormatted: null }).fee, null);
});
