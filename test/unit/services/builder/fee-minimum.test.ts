// The minimum fee of a builder order: the larger of the floor and min_fee_bps of price × size, computed in exact
// decimals (a float product such as 0.07 × 3 = 0.21000000000000002 must not move it by a base unit).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minimumFee, notionalBaseUnits } from '../../../../src/services/builder/fee-minimum.js';

test('the notional is price × size in USDC base units, exactly', () => {
  assert.equal(notionalBaseUnits(0.07, 3), 210_000n);
  assert.equal(notionalBaseUnits(0.55, 10), 5_500_000n);
  assert.equal(notionalBaseUnits(0.001, 0.5), 500n);
  assert.equal(notionalBaseUnits(0.999, 1_000_000), 999_000_000_000n);
});

test('the minimum is the floor, or min_fee_bps of the notional rounded up when that is larger', () => {
  const config = { minFeeUsdc: '10000', minFeeBps: 10 };
  // 10 bps of 5.5 USDC is 5500 base units: under the floor.
  assert.equal(minimumFee({ price: 0.55, size: 10 }, config), 10_000n);
  // 10 bps of 999 USDC is 999000.
  assert.equal(minimumFee({ price: 0.999, size: 1000 }, config), 999_000n);
  // 10 bps of 0.21 USDC is 210 base units exactly; of 0.210001 it rounds up to 211.
  assert.equal(minimumFee({ price: 0.07, size: 3 }, { minFeeUsdc: '0', minFeeBps: 10 }), 210n);
  assert.equal(minimumFee({ price: 0.070001, size: 3 }, { minFeeUsdc: '0', minFeeBps: 10 }), 211n);
  assert.equal(minimumFee({ price: 0.5, size: 2 }, { minFeeUsdc: '0', minFeeBps: 0 }), 0n);
});
