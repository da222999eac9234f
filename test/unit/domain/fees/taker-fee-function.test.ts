// takerFeeFunction parses a schedule's rates once; it must answer exactly what feeFor answers for every walk.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Decimal } from '../../../../src/domain/decimal.js';
import { feeFor, takerFeeFunction } from '../../../../src/domain/fees/fee-for.js';
import type { FeeSchedule } from '../../../../src/domain/fees/schedule.js';
import { assertProperty } from '../../../support/property.js';

const SCHEDULES: FeeSchedule[] = [
  { venue: 'polymarket', rate: '0.03', exponent: 1 },
  { venue: 'polymarket', rate: '0.25', exponent: 2 },
  { venue: 'polymarket', rate: '0', exponent: 1 },
  { venue: 'kalshi', feeType: 'quadratic', multiplier: '1' },
  { venue: 'kalshi', feeType: 'quadratic_with_maker_fees', multiplier: '0.5' },
  { venue: 'predictfun', feeRateBps: '200' },
];

test('no function where feeFor computes no fee', () => {
  for (const s of [
    { venue: 'kalshi', feeType: 'flat', multiplier: '1' },
    { venue: 'predictfun', feeRateBps: null },
    { venue: 'limitless' },
    { venue: 'opinion' },
  ] as FeeSchedule[]) {
    assert.equal(takerFeeFunction(s, 'buy'), null, s.venue);
  }
});

test('property: the same fee as feeFor for any fills, on both sides', () => {
  const fill = fc
    .tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 100_000 }))
    .map(([p, s]) => ({
      price: Decimal.fromInt(p).div(Decimal.fromInt(100), 2),
      size: Decimal.fromInt(s).div(Decimal.fromInt(100), 2),
    }));
  assertProperty(
    fc.property(
      fc.constantFrom(...SCHEDULES),
      fc.constantFrom('buy' as const, 'sell' as const),
      fc.array(fill, { maxLength: 6 }),
      (schedule, side, fills) => {
        const fn = takerFeeFunction(schedule, side);
        assert.ok(fn);
        assert.equal(fn(fills).toString(), feeFor(schedule, { side, fills }).fee?.toString());
      },
    ),
    {
      numRuns: 300,
      examples: [[SCHEDULES[3] as FeeSchedule, 'buy', [{ price: Decimal.parse('0.49'), size: Decimal.ONE }]]],
    },
  );
});
