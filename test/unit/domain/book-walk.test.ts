// The execution estimate's book walk: exact on values floats get wrong, and the invariants any walk must keep —
// the average between best and worst, fully filled exactly when the side is deep enough, cost growing with the
// amount, and a sell on the bids mirroring a buy on the complementary asks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { levelsFromBook, walkBook } from '../../../src/domain/book-walk.js';
import { Decimal } from '../../../src/domain/decimal.js';
import { assertProperty } from '../../support/property.js';

const d = Decimal.parse;

test('levels 0.1 / 0.2 / 0.7 of one contract each: exact sums, average and slippage', () => {
  const asks = levelsFromBook([
    [0.1, 1],
    [0.2, 1],
    [0.7, 1],
  ]);
  const walk = walkBook('buy', asks, d('3'));
  assert.equal(walk.notional.toString(), '1');
  assert.equal(walk.filled.toString(), '3');
  assert.equal(walk.fullyFilled, true);
  assert.equal(walk.levelsConsumed, 3);
  assert.equal(walk.avgPrice?.toString(), '0.333333333333');
  assert.equal(walk.worstPrice?.toString(), '0.7');
  assert.equal(walk.slippage?.toString(), '0.233333333333');
  // Floats: the first two levels cost 0.30000000000000004.
  assert.notEqual(0.1 * 1 + 0.2 * 1, 0.3);
  assert.equal(walkBook('buy', asks, d('2')).notional.toString(), '0.3');
});

test('a partial level, an empty side, and a side too thin', () => {
  const asks = levelsFromBook([
    [0.55, 10],
    [0.56, 5],
  ]);
  const part = walkBook('buy', asks, d('12.5'));
  assert.equal(part.notional.toString(), '6.9');
  assert.equal(part.levelsConsumed, 2);
  assert.equal(part.worstPrice?.toString(), '0.56');
  const thin = walkBook('buy', asks, d('20'));
  assert.equal(thin.fullyFilled, false);
  assert.equal(thin.filled.toString(), '15');
  const empty = walkBook('sell', [], d('1'));
  assert.equal(empty.filled.toString(), '0');
  assert.equal(empty.avgPrice, null);
  assert.equal(empty.slippage, null);
  assert.equal(empty.levelsConsumed, 0);
  assert.throws(() => walkBook('buy', asks, d('0')));
});

/** A side of a book: distinct cent prices in 0.01..0.99, sizes with up to 2 decimals. */
const side = fc
  .uniqueArray(fc.integer({ min: 1, max: 99 }), { minLength: 0, maxLength: 12 })
  .chain((cents) =>
    fc.tuple(
      fc.constant(cents),
      fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: cents.length, maxLength: cents.length }),
    ),
  )
  .map(([cents, sizes]) => cents.map((c, i) => [c / 100, (sizes[i] ?? 1) / 100] as [number, number]));
const amount = fc.integer({ min: 1, max: 5_000_000 }).map((n) => d((n / 100).toString()));

const ascending = (levels: [number, number][]) => [...levels].sort((a, b) => a[0] - b[0]);
const descending = (levels: [number, number][]) => [...levels].sort((a, b) => b[0] - a[0]);
const depth = (levels: [number, number][]) =>
  levels.reduce((sum, [, s]) => sum.add(Decimal.fromNumber(s)), Decimal.ZERO);

test('average between best and worst; fully filled iff the side is deep enough (property)', () => {
  assertProperty(
    fc.property(side, amount, fc.constantFrom('buy' as const, 'sell' as const), (levels, a, s) => {
      const sorted = s === 'buy' ? ascending(levels) : descending(levels);
      const walk = walkBook(s, levelsFromBook(sorted), a);
      assert.equal(walk.fullyFilled, depth(levels).gte(a));
      assert.ok(walk.filled.lte(a));
      if (walk.avgPrice === null || walk.bestPrice === null || walk.worstPrice === null) {
        assert.equal(levels.length, 0);
        return;
      }
      const [low, high] = s === 'buy' ? [walk.bestPrice, walk.worstPrice] : [walk.worstPrice, walk.bestPrice];
      // The average is rounded to 12 places: allow that much beyond the bounds.
      const eps = d('0.000000000001');
      assert.ok(walk.avgPrice.gte(low.sub(eps)) && walk.avgPrice.lte(high.add(eps)));
      assert.ok(walk.slippage !== null && !walk.slippage.isNegative());
    }),
    { examples: [[[[0.5, 1]], d('1'), 'buy']] },
  );
});

test('total cost grows with the amount (property)', () => {
  assertProperty(
    fc.property(side, amount, amount, (levels, a, b) => {
      const asks = levelsFromBook(ascending(levels));
      const [small, large] = a.lte(b) ? [a, b] : [b, a];
      assert.ok(walkBook('buy', asks, small).notional.lte(walkBook('buy', asks, large).notional));
      const bids = levelsFromBook(descending(levels));
      assert.ok(walkBook('sell', bids, small).notional.lte(walkBook('sell', bids, large).notional));
    }),
    { examples: [] },
  );
});

test('a sell on bids mirrors a buy on the complementary asks (property)', () => {
  assertProperty(
    fc.property(side, amount, (levels, a) => {
      const sell = walkBook('sell', levelsFromBook(descending(levels)), a);
      const mirrored = ascending(levels.map(([p, s]) => [Math.round((1 - p) * 100) / 100, s]));
      const buy = walkBook('buy', levelsFromBook(mirrored), a);
      assert.equal(sell.filled.toString(), buy.filled.toString());
      assert.equal(sell.fullyFilled, buy.fullyFilled);
      assert.equal(sell.levelsConsumed, buy.levelsConsumed);
      // Selling at p is buying the complement at 1 − p: proceeds + cost = contracts.
      assert.equal(sell.notional.add(buy.notional).toString(), sell.filled.toString());
      assert.equal(sell.slippage?.toString(), buy.slippage?.toString());
    }),
    { examples: [[[], d('0.01')]] },
  );
});
